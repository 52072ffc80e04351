import { IOptimizeResult, ISuggestion, ITogether } from './tokens';

type Counted = Pick<ISuggestion, 'rows_before' | 'rows_after' | 'estimated'>;

/**
 * Counted on every row of its read (not estimated on a sample), the filter keeps them all:
 * whatever was proved, it has no benefit on this data.
 */
export function removesNothing(s: Counted): boolean {
  return (
    !s.estimated &&
    s.rows_before !== null &&
    s.rows_before > 0 &&
    s.rows_after === s.rows_before
  );
}

/**
 * The order to show suggestions in, as their indices: counted to remove rows, most rows
 * removed first; then those not counted, in the search's order; then those that remove
 * nothing. The indices stay the model's (Apply and Undo act on them).
 */
export function byValue(suggestions: ReadonlyArray<Counted>): number[] {
  const rank = (s: Counted): [number, number] => {
    if (removesNothing(s)) {
      return [2, 0];
    }
    if (s.rows_before === null || s.rows_after === null) {
      return [1, 0];
    }
    return [0, -(s.rows_before - s.rows_after)];
  };
  return suggestions
    .map((s, i) => ({ i, key: rank(s) }))
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.i - b.i)
    .map(x => x.i);
}

/** The suggestions of `pipeline` that remove nothing, as a person reads them. */
export function worthlessOf(
  suggestions: ReadonlyArray<ISuggestion>,
  pipeline: string
): string[] {
  return suggestions
    .filter(s => s.pipeline === pipeline && removesNothing(s))
    .map(s => `${s.predicate} on ${s.source}`);
}

/**
 * Why a pipeline's joint rewrite is not applied in bulk: each of its filters that removes no
 * rows, as the engine or the row counts say, once. Empty: "Apply all" may go ahead.
 */
export function notInBulk(
  result: Pick<IOptimizeResult, 'suggestions'>,
  together: ITogether
): string[] {
  return [
    ...(together.no_benefit ?? []),
    ...worthlessOf(result.suggestions, together.pipeline)
  ].filter((name, k, all) => all.indexOf(name) === k);
}
