import * as React from 'react';

import { IProofStep, IRefusal } from '../tokens';
import { pluralRows } from './format';

/**
 * What a category's small-model pre-condition means, in one sentence: why a check on
 * `rows` symbolic rows per input is a proof for tables of any size.
 */
export function whyBaseCase(step: IProofStep): string {
  const rows = pluralRows(step.base_case_rows);
  switch (step.category) {
    case 'ROW-TO-ROW':
      return `${step.operator} keeps, drops or changes each row on its own, so ${rows} per input stands for every row of any table.`;
    case 'AGGREGATE':
      return `${step.operator} treats each group apart and its aggregates only compare or add up rows, so a group of ${rows} shows everything a larger group can do.`;
    case 'LEFTOUTERJ':
    case 'FULLOUTERJ':
      return `${step.operator} pairs each row only with rows that match its key, so ${rows} per input cover every way a row can match, not match, or meet a NULL key.`;
    case 'ROW-EXPAND':
      return `${step.operator} turns each input row into its output rows without looking at other rows, so one input row and its outputs (${rows}) stand for any table.`;
    case 'TOPK':
      return `${step.operator} keeps the first rows in sort order, so ${rows} cover rows before, at and after the cut-off, ties included.`;
    case 'SUBPIPELINE':
      return `${step.operator} runs its function on each group on its own, so proving the filter inside the function on ${rows} proves it for every group.`;
    case 'ROW-ITER-PIPELINE':
    case 'ROW-ITER':
      return `${step.operator} reads its rows one at a time; an induction over the rows (base case ${rows}) proves the filter for input of any length.`;
    default:
      return `The check on ${rows} per input is a proof for this operator's category.`;
  }
}

/** Each proof step with what its pre-condition means. */
export function WhySteps(props: { steps: IProofStep[] }): JSX.Element {
  if (props.steps.length === 0) {
    return (
      <p className="jp-MagicPush-why">
        The filter already sits right on the source's read: no operator to prove
        it through.
      </p>
    );
  }
  return (
    <ol className="jp-MagicPush-why" aria-label="Why the rewrite is correct">
      {props.steps.map((step, i) => (
        <li key={i}>
          <b>{step.operator}</b> ({step.category}, {step.kind}):{' '}
          {whyBaseCase(step)}
        </li>
      ))}
    </ol>
  );
}

/** Rows of a counterexample input as a small table. */
function RowsTable(props: {
  name: string;
  rows: { [column: string]: unknown }[];
}): JSX.Element {
  const columns = Array.from(
    new Set(props.rows.flatMap(row => Object.keys(row)))
  );
  const show = (v: unknown): string => (v === null ? 'NULL' : String(v));
  return (
    <table className="jp-MagicPush-rowsTable" aria-label={props.name}>
      <caption>{props.name}</caption>
      <thead>
        <tr>
          {columns.map(c => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row, i) => (
          <tr key={i}>
            {columns.map(c => (
              <td key={c}>{show(row[c])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Why a filter was not pushed further: the operator, the reason, and for the naive
 * candidate the input on which it would change the result. */
export function WhyNot(props: { refusals: IRefusal[] }): JSX.Element | null {
  if (props.refusals.length === 0) {
    return null;
  }
  return (
    <section className="jp-MagicPush-whyNot" aria-label="Why not further">
      <h3>Why not further</h3>
      {props.refusals.map((r, i) => {
        const tables = Object.entries(r.counterexample ?? {});
        return (
          <div key={i} className="jp-MagicPush-refusal">
            <p>
              <b>{r.operator}</b> in <code>{r.pipeline}</code>: {r.reason}
            </p>
            {r.candidate && tables.length > 0 && (
              <>
                <p>
                  <code>{r.candidate}</code> at the source would change the
                  result on these rows:
                </p>
                {tables.map(([name, rows]) => (
                  <RowsTable key={name} name={name} rows={rows} />
                ))}
              </>
            )}
          </div>
        );
      })}
    </section>
  );
}
