import * as React from 'react';

import { ISuggestion } from '../tokens';
import { formatReduction, formatRows } from './format';

/** "rows: 1,000,000 → 4,000 (−99.6%)" with a bar for the rows that remain. */
export function RowReduction(props: { suggestion: ISuggestion }): JSX.Element {
  const { rows_before, rows_after, row_reduction, estimated } =
    props.suggestion;
  if (rows_before === null || rows_after === null) {
    return (
      <p className="jp-MagicPush-rows jp-MagicPush-muted">rows: not measured</p>
    );
  }
  const reduction =
    row_reduction ?? (rows_before > 0 ? 1 - rows_after / rows_before : 0);
  const kept =
    rows_before > 0 ? Math.min(100, (100 * rows_after) / rows_before) : 100;
  const text =
    `rows: ${estimated ? '≈' : ''}${formatRows(rows_before)} → ` +
    `${estimated ? '≈' : ''}${formatRows(rows_after)} (${formatReduction(reduction)})`;
  return (
    <div className="jp-MagicPush-rows">
      <span>{text}</span>
      <div
        className="jp-MagicPush-bar"
        role="img"
        aria-label={`${kept.toFixed(1)}% of the source rows remain`}
      >
        <div className="jp-MagicPush-barKept" style={{ width: `${kept}%` }} />
      </div>
    </div>
  );
}
