/**
 * What a side-by-side diff tab shows: one suggestion of a result, a pipeline's joint
 * rewrite, or a fold of a withColumn chain. Pure functions over a result, so no notebook or
 * widget is needed.
 */

import { foldTitle } from './folds';
import { ICellChange, IFold, IOptimizeResult, ISuggestion } from './tokens';

/** A suggestion of the result, by its index, the joint rewrite of a pipeline, or a fold by its index. */
export type DiffTarget =
  | { kind: 'one'; index: number }
  | { kind: 'together'; pipeline: string }
  | { kind: 'fold'; index: number };

/** Opens (or brings to the front) the side-by-side tab of a target of the shown result. */
export type OpenSideBySide = (target: DiffTarget) => Promise<void>;

/** The part of a result a side-by-side tab is made from. */
export type TargetResult = Pick<
  IOptimizeResult,
  'suggestions' | 'together' | 'folds'
>;

function suggestionKey(s: ISuggestion): string {
  return JSON.stringify(['one', s.pipeline ?? null, s.source, s.predicate]);
}

function togetherKey(pipeline: string): string {
  return JSON.stringify(['together', pipeline]);
}

/** A fold stands for its chain: the pipeline and the trace events of its first and last call. */
function foldKey(f: IFold): string {
  return JSON.stringify(['fold', f.pipeline, f.first_event, f.last_event]);
}

/**
 * What a tab stands for across results: the pipeline, source and predicate of a suggestion,
 * which an optimization run again gives again while the suggestion still holds (its index
 * may change). Throws for a target the result does not have.
 */
export function targetKey(result: TargetResult, target: DiffTarget): string {
  if (target.kind === 'together') {
    if (!(result.together ?? []).some(t => t.pipeline === target.pipeline)) {
      throw new Error(
        `There is no joint rewrite for pipeline ${target.pipeline}`
      );
    }
    return togetherKey(target.pipeline);
  }
  if (target.kind === 'fold') {
    const fold = (result.folds ?? [])[target.index];
    if (!fold) {
      throw new Error(`There is no fold ${target.index + 1}`);
    }
    return foldKey(fold);
  }
  const suggestion = result.suggestions[target.index];
  if (!suggestion) {
    throw new Error(`There is no suggestion ${target.index + 1}`);
  }
  return suggestionKey(suggestion);
}

/** The target of `result` that `key` stands for, or null when the result no longer has it. */
export function findTarget(
  result: TargetResult,
  key: string
): DiffTarget | null {
  const index = result.suggestions.findIndex(s => suggestionKey(s) === key);
  if (index >= 0) {
    return { kind: 'one', index };
  }
  const joint = (result.together ?? []).find(
    t => togetherKey(t.pipeline) === key
  );
  if (joint) {
    return { kind: 'together', pipeline: joint.pipeline };
  }
  const fold = (result.folds ?? []).findIndex(f => foldKey(f) === key);
  return fold >= 0 ? { kind: 'fold', index: fold } : null;
}

/** The cells a target's Apply rewrites, each with its code before and after. */
export function targetCells(
  result: TargetResult,
  target: DiffTarget
): ICellChange[] {
  if (target.kind === 'one') {
    return result.suggestions[target.index]?.cells ?? [];
  }
  if (target.kind === 'fold') {
    return (result.folds ?? [])[target.index]?.cells ?? [];
  }
  const joint = (result.together ?? []).find(
    t => t.pipeline === target.pipeline
  );
  return joint ? joint.cells : [];
}

/**
 * A suggestion as the tab's title names it: "filter on orders", numbered by its place in the
 * result ("filter 2 on orders") only when another filter of its pipeline is on the same
 * source.
 */
function suggestionName(result: TargetResult, index: number): string {
  const s = result.suggestions[index];
  const sameSource = result.suggestions.filter(
    other => other.pipeline === s.pipeline && other.source === s.source
  );
  return sameSource.length > 1
    ? `filter ${index + 1} on ${s.source}`
    : `filter on ${s.source}`;
}

/** The tab's title: "Diff: big_earners — filter on orders", "Diff: out — all 2 filters". */
export function targetTitle(result: TargetResult, target: DiffTarget): string {
  if (target.kind === 'together') {
    const joint = (result.together ?? []).find(
      t => t.pipeline === target.pipeline
    );
    const filters = joint ? `all ${joint.suggestions} filters` : 'all filters';
    return `Diff: ${target.pipeline} — ${filters}`;
  }
  if (target.kind === 'fold') {
    const fold = (result.folds ?? [])[target.index];
    const what = fold ? foldTitle(fold) : 'Fold';
    return fold?.pipeline
      ? `Diff: ${fold.pipeline} — ${what}`
      : `Diff: ${what}`;
  }
  const pipeline = result.suggestions[target.index]?.pipeline;
  const name = suggestionName(result, target.index);
  return pipeline ? `Diff: ${pipeline} — ${name}` : `Diff: ${name}`;
}

/** A command's arguments as a target; throws when they name none. */
export function targetOfArgs(args: {
  readonly [key: string]: unknown;
}): DiffTarget {
  if (args.kind === 'one' && typeof args.index === 'number') {
    return { kind: 'one', index: args.index };
  }
  if (args.kind === 'together' && typeof args.pipeline === 'string') {
    return { kind: 'together', pipeline: args.pipeline };
  }
  if (args.kind === 'fold' && typeof args.index === 'number') {
    return { kind: 'fold', index: args.index };
  }
  throw new Error(
    'Open side by side needs a suggestion index, a pipeline name or a fold index'
  );
}
