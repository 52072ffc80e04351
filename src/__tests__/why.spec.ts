import {
  blockingSteps,
  codeSpans,
  otherNotes,
  readable,
  relation,
  withoutInlineRows
} from '../why';
import { IRefusal } from '../tokens';

describe('why, in the user terms', () => {
  it.each([
    ['F.col("points") > 1000', 'points > 1000'],
    ["fn.col('amount') > 950", 'amount > 950'],
    ['(F.col("a") > 1) & (F.col("b") < 2)', '(a > 1) & (b < 2)'],
    ['(F.col("a") > 1)', 'a > 1'],
    ['F.col("my col") > 1', 'F.col("my col") > 1']
  ])('reads %s as %s', (code, text) => {
    expect(readable(code)).toBe(text);
  });

  it.each([
    [
      'equivalent',
      'F.col("points") > 1000',
      '`points > 1000` holds exactly when `amount > 950` does, for every row of `orders`: ' +
        'filtering `orders` by `amount > 950` keeps the same rows, and the late filter goes.'
    ],
    [
      'superset',
      'F.col("points") > 1000',
      'Every row kept by `points > 1000` has `amount > 950` at `orders`, so filtering there first ' +
        'loses none of them; the late filter stays to drop the rest.'
    ],
    [
      'superset',
      null,
      'Every row kept by the late filter has `amount > 950` at `orders`, so filtering there first ' +
        'loses none of them; the late filter stays to drop the rest.'
    ],
    [
      'equivalent',
      null,
      'The late filter holds exactly when `amount > 950` does, for every row of `orders`: ' +
        'filtering `orders` by `amount > 950` keeps the same rows, and the late filter goes.'
    ]
  ] as const)(
    'a %s suggestion of late filter %s reads as its relation',
    (kind, late, sentence) => {
      expect(
        relation({
          kind,
          source: 'orders',
          predicate: 'F.col("amount") > 950',
          late_predicate: late
        })
      ).toBe(sentence);
    }
  );

  it('a filter in pandas code after toPandas() reads as rows kept from Python', () => {
    expect(
      relation({
        kind: 'superset',
        source: 'sales',
        predicate: 'F.col("qty") > 39',
        late_predicate: "top = pdf[pdf['score'] > 400]",
        late_filter_in_pandas: true
      })
    ).toBe(
      "Every row the pandas code `top = pdf[pdf['score'] > 400]` keeps has `qty > 39` at `sales`, " +
        'so filtering there first moves fewer rows into Python and loses none of them; the pandas filter stays.'
    );
  });

  it.each([
    [
      "TopK `a.limit(3)` (cell [2], line 1): no filter (`k > 5` at the source would change the result on input 1: {'k': (1)}); `f` is not read",
      'TopK `a.limit(3)` (cell [2], line 1): no filter; `f` is not read'
    ],
    ['GroupBy: no candidate (`k > 5`)', 'GroupBy: no candidate (`k > 5`)']
  ])(
    'a note shown beside its table leaves its inline rows out: %s',
    (note, shown) => {
      expect(withoutInlineRows(note, 'k > 5')).toBe(shown);
    }
  );

  it('splits code from words at backticks', () => {
    expect(codeSpans('Every row of `a > 1` stays')).toEqual([
      { code: false, text: 'Every row of ' },
      { code: true, text: 'a > 1' },
      { code: false, text: ' stays' }
    ]);
  });

  const refusal = (note: string | null, event: number | null): IRefusal => ({
    pipeline: 'out',
    operator: 'GroupBy',
    reason: 'no candidate could be proved',
    candidate: 'x > 1',
    counterexample: {},
    event,
    note
  });

  it('says each blocking step once, and leaves its note out of the other notes', () => {
    const refusals = [
      refusal('GroupBy `df.groupBy("k")` (cell [4], line 2): no candidate', 7),
      refusal('GroupBy `df.groupBy("k")` (cell [4], line 2): no candidate', 7),
      refusal(null, null)
    ];
    const steps = blockingSteps(refusals);
    expect(steps.map(s => [s.note, s.event, s.refusals.length])).toEqual([
      ['GroupBy `df.groupBy("k")` (cell [4], line 2): no candidate', 7, 2],
      ['GroupBy: no candidate could be proved', null, 1]
    ]);
    expect(
      otherNotes(
        [
          'GroupBy `df.groupBy("k")` (cell [4], line 2): no candidate',
          'the pipeline has no filter to push'
        ],
        refusals
      )
    ).toEqual(['the pipeline has no filter to push']);
  });
});
