/**
 * What the inline banners show, and what dismissing one remembers: pure functions
 * over an optimization result and a cell's metadata, so no notebook is needed.
 */

import { ICellChange, IOptimizeResult, ISuggestion } from './tokens';

/** Cell metadata key of what MagicPush keeps in a notebook: the dismissed suggestions. */
export const METADATA_KEY = 'magicpush';

/**
 * What one banner line offers: a single suggestion, or all of a pipeline's
 * suggestions as its joint rewrite (the only way they were proved together).
 */
export type BannerEntry =
  | { kind: 'one'; index: number }
  | { kind: 'together'; pipeline: string; indices: number[] };

/** The part of a result the banners are made from. */
export type BannerResult = Pick<IOptimizeResult, 'suggestions' | 'together'>;

/**
 * A code cell whose code looks like it filters rows: only its runs start an
 * optimization on their own (a run of any other cell cannot add a late filter).
 */
export function looksLikeFilter(code: string): boolean {
  return /\.(filter|where)\s*\(|\[[^\]]*(<|>|==|!=)[^\]]*\]/.test(code);
}

/** What the model says when a cell run's wait for an optimization ends. */
export interface IAfterCellRun {
  /** Optimizations started when the cell ran, and now. */
  runsThen: number;
  runsNow: number;
  /** An optimization is in progress. */
  running: boolean;
  /** The notebook of the cell is still the active one. */
  sameNotebook: boolean;
}

/**
 * Whether a cell run starts an optimization once its wait ends: not when one started
 * since (a click on Optimize right after Run All already answers it, and a second run
 * would take away the suggestions being read), nor while one runs, nor in another tab.
 */
export function optimizesAfterCellRun(when: IAfterCellRun): boolean {
  return when.sameNotebook && !when.running && when.runsNow === when.runsThen;
}

/** What a dismissal remembers: the source and the predicate, which outlive a run's numbering. */
export function dismissalKey(s: ISuggestion): string {
  return `${s.source}: ${s.predicate}`;
}

/** The suggestions an entry stands for. */
export function entrySuggestions(
  result: BannerResult,
  entry: BannerEntry
): ISuggestion[] {
  const indices = entry.kind === 'one' ? [entry.index] : entry.indices;
  return indices.map(i => result.suggestions[i]);
}

/** The cells an entry's Apply rewrites: its suggestion's, or its pipeline's joint rewrite. */
export function entryCells(
  result: BannerResult,
  entry: BannerEntry
): ICellChange[] {
  if (entry.kind === 'one') {
    return result.suggestions[entry.index].cells;
  }
  const joint = (result.together ?? []).find(
    t => t.pipeline === entry.pipeline
  );
  return joint ? joint.cells : [];
}

/** The dismissal keys of an entry's suggestions. */
export function entryKeys(result: BannerResult, entry: BannerEntry): string[] {
  return entrySuggestions(result, entry).map(dismissalKey);
}

/**
 * Banner entries per notebook position of the late filter's cell: a pipeline with a joint
 * rewrite gets one entry for all its suggestions, others one each. Dismissed ones are left
 * out; a pipeline's entry only once all of its suggestions are dismissed.
 */
export function bannerEntries(
  result: BannerResult,
  dismissedAt: (position: number) => string[]
): Map<number, BannerEntry[]> {
  const byCell = new Map<number, BannerEntry[]>();
  const add = (position: number, entry: BannerEntry): void => {
    byCell.set(position, [...(byCell.get(position) ?? []), entry]);
  };
  const { suggestions, together } = result;
  const jointly = new Set((together ?? []).map(t => t.pipeline));
  const placed = new Set<string>();
  suggestions.forEach((s, index) => {
    const position = s.late_filter_cell;
    if (position === null || position === undefined) {
      return;
    }
    const dismissed = dismissedAt(position);
    if (s.pipeline && jointly.has(s.pipeline)) {
      if (placed.has(s.pipeline)) {
        return;
      }
      placed.add(s.pipeline);
      const indices = suggestions
        .map((t, i) => (t.pipeline === s.pipeline ? i : -1))
        .filter(i => i >= 0);
      const keys = indices.map(i => dismissalKey(suggestions[i]));
      if (!keys.every(k => dismissed.includes(k))) {
        add(position, { kind: 'together', pipeline: s.pipeline, indices });
      }
    } else if (!dismissed.includes(dismissalKey(s))) {
      add(position, { kind: 'one', index });
    }
  });
  return byCell;
}

/** The keys dismissed in a cell's MagicPush metadata (anything malformed counts as none). */
export function dismissedKeys(stored: unknown): string[] {
  const dismissed = (stored as { dismissed?: unknown } | undefined | null)
    ?.dismissed;
  return Array.isArray(dismissed)
    ? dismissed.filter((k): k is string => typeof k === 'string')
    : [];
}

/**
 * A cell's MagicPush metadata with `keys` dismissed too: other fields are kept,
 * keys are not repeated, and malformed metadata is replaced.
 */
export function withDismissed(
  stored: unknown,
  keys: string[]
): { [key: string]: unknown; dismissed: string[] } {
  const base =
    stored && typeof stored === 'object' && !Array.isArray(stored)
      ? (stored as { [key: string]: unknown })
      : {};
  const dismissed = [...new Set([...dismissedKeys(stored), ...keys])];
  return { ...base, dismissed };
}
