import { foldDepth, foldLabel, foldsSentence, foldTitle } from '../folds';
import { IStoredResult, restorable } from '../resultStore';
import {
  findTarget,
  targetCells,
  targetKey,
  targetOfArgs,
  targetTitle
} from '../sideBySide';
import { IFold } from '../tokens';

const LOOP =
  'df = src\nfor i in range(120):\n    df = df.withColumn(f"c{i}", F.col("id") + i)';
const FOLDED =
  'df = src\ndf = df.withColumns({f"c{i}": F.col("id") + i for i in range(120)})';

function fold(changes: Partial<IFold> = {}): IFold {
  return {
    pipeline: 'df',
    calls: 120,
    folded: 120,
    with_columns: 1,
    depth_after: 1,
    first_event: 3,
    last_event: 122,
    reason: '120 withColumn calls nest the plan 120 deep',
    cells: [
      { index: 1, original: LOOP, rewritten: FOLDED, execution_count: 2 }
    ],
    ...changes
  };
}

describe('the words of a fold', () => {
  it.each([
    ['one withColumns', fold(), 'Fold 120 withColumn calls into 1 withColumns'],
    [
      'a chain cut into layers',
      fold({ calls: 600, folded: 598, with_columns: 3 }),
      'Fold 598 withColumn calls into 3 withColumns'
    ]
  ])('title: %s', (_, f, title) => {
    expect(foldTitle(f)).toBe(title);
  });

  it.each([
    ['folded to one level', fold(), 'plan 120 deep, 1 once folded'],
    [
      'a call left between two folds',
      fold({ calls: 600, depth_after: 3 }),
      'plan 600 deep, 3 once folded'
    ]
  ])('depth: %s', (_, f, depth) => {
    expect(foldDepth(f)).toBe(depth);
  });

  it.each([
    [
      'names the pipeline',
      fold(),
      '120 withColumn calls of df folded into 1 withColumns'
    ],
    [
      'a chain no variable holds: no pipeline named',
      fold({ pipeline: null }),
      '120 withColumn calls folded into 1 withColumns'
    ]
  ])('label as already applied: %s', (_, f, label) => {
    expect(foldLabel(f)).toBe(label);
  });

  it.each([
    ['no fold: no sentence', [], null],
    [
      'one fold',
      [fold()],
      '1 chain of withColumn calls can be folded into withColumns'
    ],
    [
      'two folds',
      [fold(), fold({ pipeline: 'other' })],
      '2 chains of withColumn calls can be folded into withColumns'
    ]
  ])('headline: %s', (_, folds, sentence) => {
    expect(foldsSentence(folds)).toBe(sentence);
  });
});

const CELLS = [
  { id: 's', source: 'src = spark.range(10)' },
  { id: 'l', source: LOOP }
];

function stored(folds: IFold[]): IStoredResult {
  return {
    result: {
      notebook: null,
      suggestions: [],
      together: [],
      notes: [],
      measure_errors: [],
      optimizer_seconds: 0.1,
      folds
    },
    cells: CELLS
  } as unknown as IStoredResult;
}

const payload = (cells: { id: string; source: string }[]) =>
  cells.map(c => ({ ...c, cell_type: 'code' }));

describe('a fold kept across a reload', () => {
  it.each([
    ['its cell unchanged: the fold comes back', CELLS, 1],
    ['its cell moved: found by its id', [CELLS[1], CELLS[0]], 1],
    [
      'its cell edited since: nothing is left to restore',
      [CELLS[0], { id: 'l', source: `${LOOP}\ndf.count()` }],
      null
    ],
    [
      'its cell already folded (applied before the reload): not offered again',
      [CELLS[0], { id: 'l', source: FOLDED }],
      null
    ]
  ])('%s', (_, now, folds) => {
    const result = restorable(stored([fold()]), payload(now));
    expect(result === null ? null : (result.folds ?? []).length).toBe(folds);
  });
});

describe("a fold's side-by-side tab", () => {
  const result = { suggestions: [], together: [], folds: [fold()] };

  it('is titled by its pipeline and what it folds', () => {
    expect(targetTitle(result, { kind: 'fold', index: 0 })).toBe(
      'Diff: df — Fold 120 withColumn calls into 1 withColumns'
    );
  });

  it("shows the fold's cells", () => {
    expect(targetCells(result, { kind: 'fold', index: 0 })).toEqual(
      fold().cells
    );
  });

  it.each([
    ['the same chain in a new result: found again', [fold()], 0],
    [
      'another chain moved to its place: found at its new index',
      [fold({ first_event: 200, last_event: 319 }), fold()],
      1
    ],
    [
      'the chain no longer offered: the tab has nothing to show',
      [fold({ first_event: 200, last_event: 319 })],
      null
    ]
  ])('%s', (_, folds, index) => {
    const key = targetKey(result, { kind: 'fold', index: 0 });
    const again = findTarget({ suggestions: [], together: [], folds }, key);
    expect(again).toEqual(index === null ? null : { kind: 'fold', index });
  });

  it('a fold the result does not have is refused', () => {
    expect(() => targetKey(result, { kind: 'fold', index: 1 })).toThrow(
      'There is no fold 2'
    );
  });

  it("the command's arguments name a fold", () => {
    expect(targetOfArgs({ kind: 'fold', index: 0 })).toEqual({
      kind: 'fold',
      index: 0
    });
  });
});
