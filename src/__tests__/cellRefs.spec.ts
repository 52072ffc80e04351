import { cellRef, cellsRef, ordinal, splitCellRefs } from '../cellRefs';

describe('cell references as the user sees them', () => {
  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [102, '102nd']
  ])('ordinal(%d) is %s', (n, text) => {
    expect(ordinal(n)).toBe(text);
  });

  it.each([
    [{ position: 5, count: 3 }, 'cell [3]'],
    [{ position: 3, count: null }, "the notebook's 4th cell"]
  ])('a cell is named by its prompt, else its place: %j', (ref, text) => {
    expect(cellRef(ref)).toBe(text);
  });

  it.each([
    [[], 'no cell'],
    [[{ position: 4, count: 3 }], 'cell [3]'],
    [
      [
        { position: 4, count: 3 },
        { position: 6, count: 5 }
      ],
      'cells [3] and [5]'
    ],
    [
      [
        { position: 4, count: 3 },
        { position: 6, count: 5 },
        { position: 1, count: null }
      ],
      "cells [3], [5] and the notebook's 2nd cell"
    ],
    [[{ position: 1, count: null }], "the notebook's 2nd cell"]
  ])('several cells %j read "%s"', (refs, text) => {
    expect(cellsRef(refs)).toBe(text);
  });

  it('splits a note at each cell reference, keeping the text around it', () => {
    expect(
      splitCellRefs(
        'GroupBy `df.groupBy("k")` (cell [4], line 2); see cell [12]'
      )
    ).toEqual([
      { text: 'GroupBy `df.groupBy("k")` (' },
      { count: 4, text: 'cell [4]' },
      { text: ', line 2); see ' },
      { count: 12, text: 'cell [12]' }
    ]);
    expect(splitCellRefs('no cells here')).toEqual([{ text: 'no cells here' }]);
  });
});
