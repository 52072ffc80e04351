/**
 * How a cell is named to the user: by the execution count its prompt shows ("cell [3]"),
 * never by its notebook position, which counts markdown cells no prompt shows. Pure
 * functions; `magicpush_lab/cellref.py` is the Python side's copy.
 */

/** A cell of a result: its notebook position and the count its prompt shows, if any. */
export interface ICellRef {
  position: number;
  count: number | null;
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix =
    tens >= 10 && tens <= 20
      ? 'th'
      : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ??
        'th');
  return `${n}${suffix}`;
}

/** "[3]" for a cell whose prompt shows 3; a cell without a count by its place from the top. */
export function promptOf(ref: ICellRef): string {
  return ref.count !== null
    ? `[${ref.count}]`
    : `the notebook's ${ordinal(ref.position + 1)} cell`;
}

/** "cell [3]", or "the notebook's 4th cell" for one never run. */
export function cellRef(ref: ICellRef): string {
  return ref.count !== null ? `cell ${promptOf(ref)}` : promptOf(ref);
}

/** "cell [3]", "cells [3] and [5]", "cells [3], [5] and the notebook's 2nd cell". */
export function cellsRef(refs: ICellRef[]): string {
  if (refs.length === 0) {
    return 'no cell';
  }
  const counted = refs.filter(r => r.count !== null).length;
  const word =
    counted === 0
      ? ''
      : counted === 1 && refs.length === 1
        ? 'cell '
        : 'cells ';
  return word + joined(refs.map(promptOf));
}

function joined(parts: string[]): string {
  return parts.length === 1
    ? parts[0]
    : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** A piece of text, or the reference to the cell that ran as execution `count`. */
export type TextPart = { text: string } | { count: number; text: string };

/**
 * Text split at each "cell [N]" it holds (the engine's notes name cells so), so that
 * each can become a link to its cell.
 */
export function splitCellRefs(text: string): TextPart[] {
  const parts: TextPart[] = [];
  const pattern = /cell \[(\d+)\]/g;
  let last = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m.index > last) {
      parts.push({ text: text.slice(last, m.index) });
    }
    parts.push({ count: Number(m[1]), text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) {
    parts.push({ text: text.slice(last) });
  }
  return parts;
}
