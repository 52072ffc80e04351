import { INumberedLine, lineDiff, sideBySideRows } from '../diff';

/** A diff written as its lines with their marks, e.g. [' a', '-b', '+c']. */
function marked(before: string, after: string): string[] {
  return lineDiff(before, after).map(line => `${line.kind}${line.text}`);
}

describe('lineDiff', () => {
  it.each([
    ['equal code keeps every line', 'a\nb', 'a\nb', [' a', ' b']],
    [
      'a changed line is removed, then added',
      'a\nb',
      'a\nc',
      [' a', '-b', '+c']
    ],
    ['an added line is marked +', 'a\nc', 'a\nb\nc', [' a', '+b', ' c']],
    ['a removed line is marked -', 'a\nb\nc', 'a\nc', [' a', '-b', ' c']],
    [
      'a filter moved up: removals come before additions, kept lines stay in order',
      'df = spark.read.parquet(p)\nout = df.filter(f(x))',
      'df = spark.read.parquet(p).filter(x > 1)\nout = df.filter(f(x))',
      [
        '-df = spark.read.parquet(p)',
        '+df = spark.read.parquet(p).filter(x > 1)',
        ' out = df.filter(f(x))'
      ]
    ],
    [
      'several changed lines are removed together before their additions',
      'a\nb\nc\nd',
      'a\nB\nC\nd',
      [' a', '-b', '-c', '+B', '+C', ' d']
    ],
    ['an empty cell becomes one added line', '', 'x', ['-', '+x']],
    ['a trailing newline is a line of its own', 'a\n', 'a', [' a', '-']],
    [
      'repeated lines are matched in order, the extra one removed',
      'x\nx\ny',
      'x\ny',
      [' x', '-x', ' y']
    ]
  ])('%s', (_, before, after, expected) => {
    expect(marked(before, after)).toEqual(expected);
  });

  it('keeps whitespace differences: indentation is code in Python', () => {
    expect(marked('if a:\n  b', 'if a:\n    b')).toEqual([
      ' if a:',
      '-  b',
      '+    b'
    ]);
  });

  it('gives back both texts: kept and removed lines are before, kept and added after', () => {
    const before = 'a\nb\nc\nd\ne';
    const after = 'a\nx\nc\ne\ny';
    const lines = lineDiff(before, after);
    const side = (keep: string): string =>
      lines
        .filter(l => l.kind === ' ' || l.kind === keep)
        .map(l => l.text)
        .join('\n');
    expect(side('-')).toBe(before);
    expect(side('+')).toBe(after);
  });
});

/** A side of a row written as its number and text, e.g. '2 b'; null for an empty slot. */
function numbered(line: INumberedLine | null): string | null {
  return line === null ? null : `${line.number} ${line.text}`;
}

/** The side-by-side rows of `before` and `after`, each as [left, right]. */
function rows(before: string, after: string): (string | null)[][] {
  return sideBySideRows(lineDiff(before, after)).map(row => [
    numbered(row.before),
    numbered(row.after)
  ]);
}

describe('sideBySideRows', () => {
  it.each([
    {
      case: 'equal code: every line opposite itself',
      before: 'a\nb',
      after: 'a\nb',
      expected: [
        ['1 a', '1 a'],
        ['2 b', '2 b']
      ]
    },
    {
      case: 'a changed line: removed on the left, then added on the right',
      before: 'a\nb',
      after: 'a\nc',
      expected: [
        ['1 a', '1 a'],
        ['2 b', null],
        [null, '2 c']
      ]
    },
    {
      case: 'an added line moves the right numbers on, kept lines stay opposite',
      before: 'a\nc',
      after: 'a\nb\nc',
      expected: [
        ['1 a', '1 a'],
        [null, '2 b'],
        ['2 c', '3 c']
      ]
    },
    {
      case: 'a removed line moves the left numbers on',
      before: 'a\nb\nc',
      after: 'a\nc',
      expected: [
        ['1 a', '1 a'],
        ['2 b', null],
        ['3 c', '2 c']
      ]
    },
    {
      case: 'the filter moved to the read: the old read left, the new one right',
      before: 'df = spark.read.parquet(p)\nout = df.filter(f(x))',
      after: 'df = spark.read.parquet(p).filter(x > 1)\nout = df',
      expected: [
        ['1 df = spark.read.parquet(p)', null],
        ['2 out = df.filter(f(x))', null],
        [null, '1 df = spark.read.parquet(p).filter(x > 1)'],
        [null, '2 out = df']
      ]
    },
    {
      case: 'a block of changes between kept lines',
      before: 'a\nb\nc\nd',
      after: 'a\nB\nC\nd',
      expected: [
        ['1 a', '1 a'],
        ['2 b', null],
        ['3 c', null],
        [null, '2 B'],
        [null, '3 C'],
        ['4 d', '4 d']
      ]
    },
    {
      case: 'an empty cell is one empty line, removed',
      before: '',
      after: 'x',
      expected: [
        ['1 ', null],
        [null, '1 x']
      ]
    },
    {
      case: 'a cell emptied',
      before: 'x',
      after: '',
      expected: [
        ['1 x', null],
        [null, '1 ']
      ]
    },
    {
      case: 'lines added at the end',
      before: 'a',
      after: 'a\nb\nc',
      expected: [
        ['1 a', '1 a'],
        [null, '2 b'],
        [null, '3 c']
      ]
    }
  ])('$case', ({ before, after, expected }) => {
    expect(rows(before, after)).toEqual(expected);
  });

  it('gives back both texts, numbered from 1 without gaps, on their own sides', () => {
    const before = 'a\nb\nc\nd\ne';
    const after = 'a\nx\nc\ne\ny';
    const all = sideBySideRows(lineDiff(before, after));
    const side = (pick: 'before' | 'after'): INumberedLine[] =>
      all.map(row => row[pick]).filter((l): l is INumberedLine => l !== null);
    for (const [pick, text] of [
      ['before', before],
      ['after', after]
    ] as const) {
      expect(side(pick).map(l => l.text)).toEqual(text.split('\n'));
      expect(side(pick).map(l => l.number)).toEqual(
        text.split('\n').map((_, i) => i + 1)
      );
    }
  });
});
