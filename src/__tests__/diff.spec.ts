import { lineDiff } from '../diff';

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
