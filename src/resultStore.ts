/**
 * The last result of each notebook, kept across page reloads in JupyterLab's state database
 * (the workspace), so that its banners come back when the notebook opens again: only the
 * suggestions (and folds) whose cells still hold the code they were made for.
 */

import { INotebookCellPayload, IOptimizeResult, ISuggestion } from './tokens';

/** What is kept of a notebook's last result. */
export interface IStoredResult {
  result: IOptimizeResult;
  /** The notebook's cells when it was optimized: what its positions refer to. */
  cells: { id: string | null; source: string }[];
}

/** The key of a notebook's last result in the state database. */
export function storeKey(path: string): string {
  return `magicpush-lab:last-result:${path}`;
}

/** A stored result, or null for anything else (an older format, a damaged entry). */
export function asStored(value: unknown): IStoredResult | null {
  const v = value as Partial<IStoredResult> | null;
  return v &&
    typeof v === 'object' &&
    Array.isArray(v.cells) &&
    v.result &&
    Array.isArray(v.result.suggestions)
    ? (v as IStoredResult)
    : null;
}

/**
 * The stored result as far as it still fits the notebook's cells now: the suggestions whose
 * rewritten cells and late filter's cell still hold the code of when it was made (a cell
 * found by its id, else at its position), and the joint rewrites and withColumn folds all of
 * whose cells do. Null when none is left.
 */
export function restorable(
  stored: IStoredResult,
  now: INotebookCellPayload[]
): IOptimizeResult | null {
  const sourceNow = (position: number): string | null => {
    const id = stored.cells[position]?.id;
    const cell = id ? now.find(c => c.id === id) : now[position];
    return cell ? cell.source : null;
  };
  const holds = (position: number, code: string): boolean =>
    sourceNow(position) === code;
  const fits = (s: ISuggestion): boolean =>
    s.cells.every(c => holds(c.index, c.original)) &&
    (s.late_filter_cell === null ||
      s.late_filter_cell === undefined ||
      holds(
        s.late_filter_cell,
        stored.cells[s.late_filter_cell]?.source ?? ''
      ));
  const suggestions = stored.result.suggestions.filter(fits);
  const folds = (stored.result.folds ?? []).filter(f =>
    f.cells.every(c => holds(c.index, c.original))
  );
  if (suggestions.length === 0 && folds.length === 0) {
    return null;
  }
  const pipelines = new Set(suggestions.map(s => s.pipeline));
  const together = (stored.result.together ?? []).filter(
    t =>
      pipelines.has(t.pipeline) &&
      t.cells.every(c => holds(c.index, c.original)) &&
      suggestions.filter(s => s.pipeline === t.pipeline).length ===
        t.suggestions
  );
  return { ...stored.result, suggestions, together, folds };
}
