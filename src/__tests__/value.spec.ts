import { byValue, removesNothing } from '../value';

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
