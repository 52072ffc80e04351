/** One line of a unified diff: kept (' '), removed ('-') or added ('+'). */
export interface IDiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/**
 * The lines of `before` and `after` as a unified diff (longest common subsequence of lines;
 * cells are short, so the quadratic table is cheap). Removals come before additions.
 *
 * lineDiff('a\nb', 'a\nc') gives [' a', '-b', '+c'].
 */
export function lineDiff(before: string, after: string): IDiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: length of the longest common subsequence of a[i..] and b[j..]
  const common: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0)
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] =
        a[i] === b[j]
          ? common[i + 1][j + 1] + 1
          : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: IDiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: ' ', text: a[i] });
      i++;
      j++;
    } else if (
      i < a.length &&
      (j === b.length || common[i + 1][j] >= common[i][j + 1])
    ) {
      lines.push({ kind: '-', text: a[i] });
      i++;
    } else {
      lines.push({ kind: '+', text: b[j] });
      j++;
    }
  }
  return lines;
}

/** A line of one side of a side-by-side diff, numbered as in its own text (from 1). */
export interface INumberedLine {
  number: number;
  text: string;
}

/**
 * One row of a side-by-side diff: a kept line has both sides, a removed line only `before`
 * and an added line only `after` (the other side is an empty slot).
 */
export interface ISideBySideRow {
  before: INumberedLine | null;
  after: INumberedLine | null;
}

/**
 * The rows of a side-by-side diff made from a unified one: each line keeps its row, so kept
 * lines stand opposite each other and every change is on its side alone.
 *
 * sideBySideRows(lineDiff('a\nb', 'a\nc')) gives the rows (1 a | 1 a), (2 b | empty) and
 * (empty | 2 c).
 */
export function sideBySideRows(lines: IDiffLine[]): ISideBySideRow[] {
  let before = 0;
  let after = 0;
  return lines.map(line => {
    const left =
      line.kind === '+' ? null : { number: ++before, text: line.text };
    const right =
      line.kind === '-' ? null : { number: ++after, text: line.text };
    return { before: left, after: right };
  });
}
