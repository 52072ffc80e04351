import { asStored, IStoredResult, restorable } from '../resultStore';
import { ISuggestion, ITogether } from '../tokens';

function suggestion(
  source: string,
  cells: [number, string][],
  late: number | null,
  pipeline = 'out'
): ISuggestion {
  return {
    source,
    predicate: 'F.col("v") > 1',
    kind: 'equivalent',
    proof: [],
    cells: cells.map(([index, original]) => ({
      index,
      original,
      rewritten: `${original}.filter(...)`
    })),
    source_event: 1,
    predicate_ir: {},
    late_filter_cell: late,
    pipeline,
    rows_before: null,
    rows_after: null,
    row_reduction: null,
    estimated: false
  };
}

const CELLS = [
  { id: 'm', source: '# Title' },
  { id: 'a', source: 'a = read()' },
  { id: 'b', source: 'b = read()' },
  { id: 'f', source: 'out = a.join(b).filter(x)' }
];

function stored(suggestions: ISuggestion[], together: ITogether[] = []) {
  return {
    result: {
      notebook: null,
      suggestions,
      together,
      notes: [],
      measure_errors: [],
      optimizer_seconds: 0.1
    },
    cells: CELLS
  } as unknown as IStoredResult;
}

const payload = (cells: { id: string; source: string }[]) =>
  cells.map(c => ({ ...c, cell_type: 'code' }));

describe('the last result, restored after a reload', () => {
  const onA = suggestion('a', [[1, 'a = read()']], 3);
  const onB = suggestion('b', [[2, 'b = read()']], 3);

  it.each([
    ['the notebook unchanged: every suggestion', CELLS, ['a', 'b']],
    [
      'a cell moved: found by its id',
      [CELLS[0], CELLS[2], CELLS[1], CELLS[3]],
      ['a', 'b']
    ],
    [
      'a rewritten cell edited since: its suggestion is left out',
      [
        CELLS[0],
        { id: 'a', source: 'a = read().limit(5)' },
        CELLS[2],
        CELLS[3]
      ],
      ['b']
    ],
    [
      'the late filter edited since: no banner has its place any more',
      [CELLS[0], CELLS[1], CELLS[2], { id: 'f', source: 'out = a' }],
      []
    ],
    ['the cells gone', [CELLS[0]], []]
  ])('%s', (_, now, sources) => {
    const got = restorable(stored([onA, onB]), payload(now));
    expect(got ? got.suggestions.map(s => s.source) : []).toEqual(sources);
  });

  it('keeps a joint rewrite only while all its suggestions and cells still fit', () => {
    const joint: ITogether = {
      pipeline: 'out',
      kind: 'equivalent',
      cells: [...onA.cells, ...onB.cells],
      suggestions: 2
    };
    expect(
      restorable(stored([onA, onB], [joint]), payload(CELLS))?.together
    ).toHaveLength(1);
    const edited = [
      CELLS[0],
      CELLS[1],
      { id: 'b', source: 'b = other()' },
      CELLS[3]
    ];
    expect(
      restorable(stored([onA, onB], [joint]), payload(edited))?.together
    ).toEqual([]);
  });

  it.each([[null], [{}], [{ cells: [], result: {} }], ['text']])(
    'reads %j as nothing stored',
    value => {
      expect(asStored(value)).toBeNull();
    }
  );
});
