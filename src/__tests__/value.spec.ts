import { ISuggestion, ITogether } from '../tokens';
import { byValue, notInBulk, removesNothing } from '../value';

const counted = (
  before: number | null,
  after: number | null,
  estimated = false
) => ({ rows_before: before, rows_after: after, estimated });

describe('what a suggestion is worth', () => {
  it.each([
    [counted(1000, 4), false],
    [counted(1000, 1000), true],
    [counted(1000, 1000, true), false], // a sample cannot say "nothing"
    [counted(0, 0), false], // an empty read: nothing to say
    [counted(null, null), false] // not counted: offered as proved
  ])('%j removes nothing: %s', (s, expected) => {
    expect(removesNothing(s)).toBe(expected);
  });

  it.each([
    [
      [counted(1000, 900), counted(1000, 10), counted(1000, 500)],
      [1, 2, 0]
    ],
    [
      [counted(1000, 1000), counted(1000, 10), counted(null, null)],
      [1, 2, 0]
    ],
    [
      [counted(100, 50), counted(1000, 950), counted(10, 5)],
      [0, 1, 2]
    ]
  ])('%j is shown in the order %j', (suggestions, order) => {
    expect(byValue(suggestions)).toEqual(order);
  });
});

describe('notInBulk', () => {
  const suggestion = (
    pipeline: string,
    predicate: string,
    before: number,
    after: number
  ) =>
    ({
      ...counted(before, after),
      pipeline,
      predicate,
      source: 't'
    }) as unknown as ISuggestion;
  const joint = (no_benefit?: string[]): ITogether => ({
    pipeline: 'out',
    kind: 'equivalent',
    cells: [],
    suggestions: 2,
    no_benefit
  });

  it.each([
    {
      case: 'every filter removes rows: nothing in the way',
      suggestions: [suggestion('out', 'v > 1', 10, 5)],
      together: joint(),
      expected: []
    },
    {
      case: 'a filter of the pipeline counted to remove nothing',
      suggestions: [
        suggestion('out', 'v > 1', 10, 10),
        suggestion('out', 'w > 1', 10, 5)
      ],
      together: joint(),
      expected: ['v > 1 on t']
    },
    {
      case: "another pipeline's filter does not count",
      suggestions: [suggestion('other', 'v > 1', 10, 10)],
      together: joint(),
      expected: []
    },
    {
      case: 'the engine and the counts saying the same filter: once',
      suggestions: [suggestion('out', 'v > 1', 10, 10)],
      together: joint(['v > 1 on t']),
      expected: ['v > 1 on t']
    }
  ])('$case', ({ suggestions, together, expected }) => {
    expect(notInBulk({ suggestions }, together)).toEqual(expected);
  });
});
