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
