import * as React from 'react';

import { IFold, ISuggestion, ITogether } from '../tokens';
import { useCellsText } from './CellLink';

/**
 * A suggestion's Apply, as its card and its side-by-side tab show it: disabled once applied
 * (its name then says where), or when the suggestion rewrites no cell.
 */
export function SuggestionApplyButton(props: {
  suggestion: ISuggestion;
  applied: boolean;
  onApply: () => void;
}): JSX.Element {
  const { suggestion, applied } = props;
  const cellsText = useCellsText(suggestion.cells.map(c => c.index));
  return (
    <button
      className="jp-Button jp-mod-styled jp-mod-accept"
      disabled={applied || suggestion.cells.length === 0}
      onClick={props.onApply}
      aria-label={
        applied
          ? `Applied to ${cellsText}`
          : `Apply: rewrite ${cellsText} to filter ${suggestion.source} at the source`
      }
    >
      {applied ? 'Applied' : 'Apply'}
    </button>
  );
}

/**
 * A pipeline's "Apply all", as its card and its side-by-side tab show it: disabled once
 * applied, or while `notInBulk` names filters that remove no rows (`NotInBulk` says so).
 */
export function TogetherApplyButton(props: {
  together: ITogether;
  applied: boolean;
  notInBulk: string[];
  onApply: () => void;
}): JSX.Element {
  const { together, applied } = props;
  const cells = useCellsText(together.cells.map(c => c.index));
  return (
    <button
      className="jp-Button jp-mod-styled jp-mod-accept"
      disabled={applied || props.notInBulk.length > 0}
      onClick={props.onApply}
      aria-label={
        applied
          ? `Applied all filters of pipeline ${together.pipeline}`
          : `Apply all ${together.suggestions} filters of pipeline ${together.pipeline} (${cells})`
      }
    >
      {applied ? 'Applied' : 'Apply all'}
    </button>
  );
}

/**
 * A fold's Apply, as its card and its side-by-side tab show it: disabled once applied (its name then says where), or when the fold
 * rewrites no cell.
 */
export function FoldApplyButton(props: {
  fold: IFold;
  applied: boolean;
  onApply: () => void;
}): JSX.Element {
  const { fold, applied } = props;
  const cellsText = useCellsText(fold.cells.map(c => c.index));
  return (
    <button
      className="jp-Button jp-mod-styled jp-mod-accept"
      disabled={applied || fold.cells.length === 0}
      onClick={props.onApply}
      aria-label={
        applied
          ? `Applied to ${cellsText}`
          : `Apply fold: rewrite ${cellsText} with ${fold.with_columns} withColumns in place of ${fold.folded} withColumn calls`
      }
    >
      {applied ? 'Applied' : 'Apply'}
    </button>
  );
}

/** Why "Apply all" is disabled while it is not applied, or nothing. */
export function NotInBulk(props: {
  notInBulk: string[];
  applied: boolean;
}): JSX.Element | null {
  if (props.notInBulk.length === 0 || props.applied) {
    return null;
  }
  return (
    <p className="jp-MagicPush-caveat">
      Not applied in bulk: {props.notInBulk.join(', ')} removes no rows on this
      data. Apply the filter you want alone.
    </p>
  );
}
