/**
 * The words the panel uses for a result's folds: chains of `withColumn` calls written as
 * `withColumns` calls. Pure functions over the contract's `IFold`, so no widget is needed.
 */

import { IFold } from './tokens';

/** `n` and the noun, singular for one: "1 withColumn call", "600 withColumn calls". */
function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The card's title: "Fold 600 withColumn calls into 1 withColumns". */
export function foldTitle(fold: IFold): string {
  // `withColumns` is the method's name, the same for one call or several
  return `Fold ${counted(fold.folded, 'withColumn call', 'withColumn calls')} into ${fold.with_columns} withColumns`;
}

/** How deep the chain nests the plan, now and once folded: "plan 600 deep, 1 once folded". */
export function foldDepth(fold: IFold): string {
  return `plan ${fold.calls} deep, ${fold.depth_after} once folded`;
}

/**
 * What an applied fold is called where it is listed as already applied, and in its Apply's
 * name: "600 withColumn calls of df folded into 1 withColumns".
 */
export function foldLabel(fold: IFold): string {
  const of = fold.pipeline ? ` of ${fold.pipeline}` : '';
  return `${counted(fold.folded, 'withColumn call', 'withColumn calls')}${of} folded into ${fold.with_columns} withColumns`;
}

/**
 * The headline's sentence for folds, or null without any: "1 chain of withColumn calls can be
 * folded into withColumns". It keeps a result whose only finding is a fold from reading as
 * if nothing was found.
 */
export function foldsSentence(folds: ReadonlyArray<IFold>): string | null {
  if (folds.length === 0) {
    return null;
  }
  const chains = counted(
    folds.length,
    'chain of withColumn calls',
    'chains of withColumn calls'
  );
  return `${chains} can be folded into withColumns`;
}
