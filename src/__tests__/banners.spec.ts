import {
  BannerEntry,
  bannerEntries,
  BannerResult,
  dismissalKey,
  dismissedKeys,
  entryCells,
  entryKeys,
  looksLikeFilter,
  optimizesAfterCellRun,
  withDismissed
} from '../banners';
import { ISuggestion, ITogether } from '../tokens';

/** A suggestion with only what the banners look at filled in. */
function suggestion(
  source: string,
  predicate: string,
  where: { cell?: number | null; pipeline?: string | null } = {}
): ISuggestion {
  return {
    source,
    predicate,
    kind: 'equivalent',
    proof: [],
    cells: [{ index: 0, original: source, rewritten: `${source}!` }],
    source_event: 0,
    predicate_ir: {},
    rows_before: null,
    rows_after: null,
    row_reduction: null,
    estimated: false,
    pipeline: where.pipeline ?? null,
    late_filter_cell: where.cell === undefined ? 2 : where.cell
  };
}

function together(pipeline: string, suggestions: number): ITogether {
  return {
    pipeline,
    kind: 'equivalent',
    cells: [{ index: 9, original: 'joint', rewritten: 'joint!' }],
    suggestions
  };
}

/** The entries as a plain object, position -> entries, for toEqual. */
function entriesOf(
  result: BannerResult,
  dismissed: { [position: number]: string[] } = {}
): { [position: number]: BannerEntry[] } {
  const byCell = bannerEntries(result, p => dismissed[p] ?? []);
  return Object.fromEntries(byCell);
}

describe('bannerEntries', () => {
  const a = suggestion('a', 'x > 1', { cell: 2 });
  const b = suggestion('b', 'y < 3', { cell: 4 });
  const p1 = suggestion('p', 'x > 1', { cell: 5, pipeline: 'out' });
  const p2 = suggestion('q', 'y < 3', { cell: 5, pipeline: 'out' });

  it.each<
    [
      string,
      BannerResult,
      { [position: number]: string[] },
      { [position: number]: BannerEntry[] }
    ]
  >([
    [
      'one entry per suggestion, under the cell of its late filter',
      { suggestions: [a, b] },
      {},
      {
        2: [{ kind: 'one', index: 0 }],
        4: [{ kind: 'one', index: 1 }]
      }
    ],
    [
      'two suggestions for one cell share its banner, in result order',
      { suggestions: [a, suggestion('c', 'z == 0', { cell: 2 })] },
      {},
      {
        2: [
          { kind: 'one', index: 0 },
          { kind: 'one', index: 1 }
        ]
      }
    ],
    [
      'no banner for a suggestion whose late filter is in no cell',
      {
        suggestions: [
          suggestion('a', 'x > 1', { cell: null }),
          { ...b, late_filter_cell: undefined }
        ]
      },
      {},
      {}
    ],
    [
      'a pipeline with a joint rewrite gets one entry for all its suggestions',
      { suggestions: [p1, p2], together: [together('out', 2)] },
      {},
      { 5: [{ kind: 'together', pipeline: 'out', indices: [0, 1] }] }
    ],
    [
      'a pipeline without a joint rewrite gets one entry per suggestion',
      { suggestions: [p1, p2], together: [] },
      {},
      {
        5: [
          { kind: 'one', index: 0 },
          { kind: 'one', index: 1 }
        ]
      }
    ],
    [
      'a joint entry counts only its own pipeline, wherever its suggestions are in the result',
      {
        suggestions: [p1, a, p2],
        together: [together('out', 2)]
      },
      {},
      {
        5: [{ kind: 'together', pipeline: 'out', indices: [0, 2] }],
        2: [{ kind: 'one', index: 1 }]
      }
    ],
    [
      'a dismissed suggestion gets no entry; the others of its cell stay',
      { suggestions: [a, suggestion('c', 'z == 0', { cell: 2 })] },
      { 2: ['a: x > 1'] },
      { 2: [{ kind: 'one', index: 1 }] }
    ],
    [
      'a dismissal in another cell does not hide the suggestion',
      { suggestions: [a] },
      { 4: ['a: x > 1'] },
      { 2: [{ kind: 'one', index: 0 }] }
    ],
    [
      'a joint entry stays while one of its suggestions is not dismissed',
      { suggestions: [p1, p2], together: [together('out', 2)] },
      { 5: ['p: x > 1'] },
      { 5: [{ kind: 'together', pipeline: 'out', indices: [0, 1] }] }
    ],
    [
      'a joint entry goes once all of its suggestions are dismissed',
      { suggestions: [p1, p2], together: [together('out', 2)] },
      { 5: ['p: x > 1', 'q: y < 3'] },
      {}
    ]
  ])('%s', (_, result, dismissed, expected) => {
    expect(entriesOf(result, dismissed)).toEqual(expected);
  });
});

describe('dismissal', () => {
  const a = suggestion('orders', 'col("qty") > 10');
  const p1 = suggestion('p', 'x > 1', { pipeline: 'out' });
  const p2 = suggestion('q', 'y < 3', { pipeline: 'out' });
  const result: BannerResult = {
    suggestions: [a, p1, p2],
    together: [together('out', 2)]
  };

  it('remembers the source and the predicate, which outlive a run', () => {
    expect(dismissalKey(a)).toBe('orders: col("qty") > 10');
    // the same filter found by a later run, at another index and event, has the same key
    expect(dismissalKey({ ...a, source_event: 42, kind: 'superset' })).toBe(
      dismissalKey(a)
    );
  });

  it.each<[string, BannerEntry, string[]]>([
    [
      'one entry dismisses its suggestion',
      { kind: 'one', index: 0 },
      ['orders: col("qty") > 10']
    ],
    [
      'a joint entry dismisses every suggestion of its pipeline',
      { kind: 'together', pipeline: 'out', indices: [1, 2] },
      ['p: x > 1', 'q: y < 3']
    ]
  ])('%s', (_, entry, keys) => {
    expect(entryKeys(result, entry)).toEqual(keys);
  });

  it.each<[string, unknown, string[]]>([
    ['no metadata: nothing dismissed', undefined, []],
    ['null: nothing dismissed', null, []],
    ['metadata that is not an object: nothing dismissed', 'x', []],
    [
      'a dismissed field that is not a list: nothing dismissed',
      { dismissed: 'a: x' },
      []
    ],
    ['the stored keys', { dismissed: ['a: x', 'b: y'] }, ['a: x', 'b: y']],
    [
      'keys that are not strings are skipped',
      { dismissed: ['a: x', 3, null] },
      ['a: x']
    ]
  ])('reads %s', (_, stored, keys) => {
    expect(dismissedKeys(stored)).toEqual(keys);
  });

  it.each<[string, unknown, string[], unknown]>([
    [
      'starts the list in a cell without metadata',
      undefined,
      ['a: x'],
      { dismissed: ['a: x'] }
    ],
    [
      'adds to the keys dismissed before, without repeating one',
      { dismissed: ['a: x', 'b: y'] },
      ['b: y', 'c: z'],
      { dismissed: ['a: x', 'b: y', 'c: z'] }
    ],
    [
      'keeps the other fields of the metadata',
      { note: 'kept', dismissed: [] },
      ['a: x'],
      { note: 'kept', dismissed: ['a: x'] }
    ],
    [
      'replaces metadata that is not an object',
      ['junk'],
      ['a: x'],
      { dismissed: ['a: x'] }
    ]
  ])('%s', (_, stored, keys, expected) => {
    expect(withDismissed(stored, keys)).toEqual(expected);
  });

  it('does not change the metadata it was given', () => {
    const stored = { dismissed: ['a: x'] };
    withDismissed(stored, ['b: y']);
    expect(stored).toEqual({ dismissed: ['a: x'] });
  });
});

describe('entryCells', () => {
  const a = suggestion('a', 'x > 1');
  const result: BannerResult = {
    suggestions: [a],
    together: [together('out', 2)]
  };

  it.each<[string, BannerEntry, string[]]>([
    [
      "one entry rewrites its suggestion's cells",
      { kind: 'one', index: 0 },
      ['a!']
    ],
    [
      "a joint entry rewrites its pipeline's joint cells",
      { kind: 'together', pipeline: 'out', indices: [0] },
      ['joint!']
    ],
    [
      'a joint entry without its joint rewrite rewrites nothing',
      { kind: 'together', pipeline: 'gone', indices: [0] },
      []
    ]
  ])('%s', (_, entry, rewritten) => {
    expect(entryCells(result, entry).map(c => c.rewritten)).toEqual(rewritten);
  });
});

describe('looksLikeFilter', () => {
  it.each([
    ['df.filter(F.col("x") > 1)', true],
    ['df.where("x > 1")', true],
    ['df.filter (cond)', true],
    ['df[df.x > 1]', true],
    ['df[df.x != 2]', true],
    ['df = spark.read.parquet(path)', false],
    ['df.select("x").show()', false],
    ['df["x"]', false],
    ['x > 1', false]
  ])('%s -> %s', (code, filters) => {
    expect(looksLikeFilter(code)).toBe(filters);
  });
});

describe('optimizesAfterCellRun', () => {
  const quiet = { runsThen: 3, runsNow: 3, running: false, sameNotebook: true };
  it.each([
    ['nothing happened since the cell ran', quiet, true],
    ['an optimization started since', { ...quiet, runsNow: 4 }, false],
    [
      'one started since and still runs',
      { ...quiet, runsNow: 4, running: true },
      false
    ],
    [
      'one runs that began before the cell ran',
      { ...quiet, running: true },
      false
    ],
    ['another notebook is active', { ...quiet, sameNotebook: false }, false]
  ])('%s', (_, when, optimizes) => {
    expect(optimizesAfterCellRun(when)).toBe(optimizes);
  });
});
