import * as React from 'react';

import { ISuggestion } from '../tokens';
import { removesNothing } from '../value';
import { formatReduction, formatRows, savingBasis, savingText } from './format';

/** One labelled bar: `rows` of the source's `total`, as its share of the width. */
function RowsBar(props: {
  label: string;
  rows: number;
  total: number;
  estimated: boolean;
}): JSX.Element {
  const { label, rows, total, estimated } = props;
  const width = total > 0 ? Math.min(100, (100 * rows) / total) : 100;
  const figure = `${estimated ? '≈' : ''}${formatRows(rows)}`;
  return (
    <div
      className="jp-MagicPush-rowsBar"
      role="img"
      aria-label={`${label}: ${figure} rows${estimated ? ', estimated' : ''}`}
    >
      <span className="jp-MagicPush-rowsLabel">{label}</span>
      <div className="jp-MagicPush-bar">
        <div
          className={`jp-MagicPush-barKept jp-MagicPush-bar-${label}`}
          style={{ width: `${width}%` }}
        />
      </div>
      <span className="jp-MagicPush-rowsFigure">{figure}</span>
    </div>
  );
}

/**
 * "rows: 1,000,000 → 4,000 (−99.6%)" and the rows read at the source before and after as
 * bars; figures counted on a sample carry ≈ and say so.
 */
export function RowReduction(props: {
  suggestion: ISuggestion;
  /** Rows are being counted on the kernel right now. */
  counting?: boolean;
  /**
   * The pipeline's run time was measured: the estimate of the time saved gives way to the
   * measurement (one story of the time, not two that disagree).
   */
  timed?: boolean;
}): JSX.Element {
  const { rows_before, rows_after, row_reduction, estimated, time_saved } =
    props.suggestion;
  if (rows_before === null || rows_after === null) {
    return (
      <p className="jp-MagicPush-rows jp-MagicPush-muted">
        {props.counting ? 'rows: counting…' : 'rows: not measured'}
      </p>
    );
  }
  const reduction =
    row_reduction ?? (rows_before > 0 ? 1 - rows_after / rows_before : 0);
  const text =
    `rows: ${estimated ? '≈' : ''}${formatRows(rows_before)} → ` +
    `${estimated ? '≈' : ''}${formatRows(rows_after)} (${formatReduction(reduction)})`;
  return (
    <div className="jp-MagicPush-rowsFigures">
      <p className="jp-MagicPush-rows">
        {text}
        {estimated && (
          <span
            className="jp-MagicPush-estimated"
            title="Counting every row took longer than the time limit: these figures come from a sample, scaled up"
          >
            {' '}
            estimated
          </span>
        )}
      </p>
      {removesNothing(props.suggestion) && (
        <p className="jp-MagicPush-caveat jp-MagicPush-noBenefit">
          No benefit: on this data the filter keeps every row its read hands on.
          It is shown last and left out of Apply all.
        </p>
      )}
      <RowsBar
        label="before"
        rows={rows_before}
        total={rows_before}
        estimated={estimated}
      />
      <RowsBar
        label="after"
        rows={rows_after}
        total={rows_before}
        estimated={estimated}
      />
      {time_saved && !props.timed && (
        <p className="jp-MagicPush-timeSaved">
          {savingText(time_saved) && (
            <>
              {savingText(time_saved)}{' '}
              <span className="jp-MagicPush-estimated">estimate</span>{' '}
            </>
          )}
          <span className="jp-MagicPush-muted">{savingBasis(time_saved)}</span>
        </p>
      )}
    </div>
  );
}
