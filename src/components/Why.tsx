import * as React from 'react';

import { IProofStep, IRefusal, ISuggestion } from '../tokens';
import {
  blockingSteps,
  categoryWords,
  codeSpans,
  relation,
  withoutInlineRows
} from '../why';
import { TextWithCellLinks } from './CellLink';
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

/** Words with their `code` parts shown as code. */
export function WithCode(props: { text: string }): JSX.Element {
  return (
    <>
      {codeSpans(props.text).map((part, i) =>
        part.code ? (
          <code key={i}>{part.text}</code>
        ) : (
          <React.Fragment key={i}>{part.text}</React.Fragment>
        )
      )}
    </>
  );
}

/**
 * Why a suggestion is correct: first how its predicate relates to the late filter, in
 * words; then each step of the proof, in plain words first and the paper's terms after.
 */
export function Why(props: { suggestion: ISuggestion }): JSX.Element {
  const { suggestion } = props;
  return (
    <div className="jp-MagicPush-why">
      <p className="jp-MagicPush-relation">
        <WithCode text={relation(suggestion)} />
      </p>
      <WhySteps steps={suggestion.proof} />
    </div>
  );
}

/** Each proof step with what its pre-condition means. */
export function WhySteps(props: { steps: IProofStep[] }): JSX.Element {
  if (props.steps.length === 0) {
    return (
      <p className="jp-MagicPush-muted">
        The filter already sits right on the source's read: no step to prove it
        through.
      </p>
    );
  }
  return (
    <>
      <p className="jp-MagicPush-muted">How it was proved, step by step:</p>
      <ol aria-label="Why the rewrite is correct">
        {props.steps.map((step, i) => (
          <li key={i}>
            <b>{step.operator}</b>, checked {categoryWords(step)}:{' '}
            {whyBaseCase(step)}{' '}
            <span className="jp-MagicPush-muted">
              (proof category {step.category}, base case{' '}
              {pluralRows(step.base_case_rows)}
              {step.kind === 'superset' ? '; keeps a superset of the rows' : ''}
              )
            </span>
          </li>
        ))}
      </ol>
    </>
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

/**
 * Why a filter was not pushed (further): each step that stopped one, said once, with the
 * input rows on which the naive filter at the source would change the result.
 */
export function WhyNot(props: {
  refusals: IRefusal[];
  /** Nothing was pushed: these steps are why. */
  nothingPushed?: boolean;
}): JSX.Element | null {
  if (props.refusals.length === 0) {
    return null;
  }
  const title = props.nothingPushed ? 'Why nothing moved' : 'Why not further';
  return (
    <section className="jp-MagicPush-whyNot" aria-label={title}>
      <h3>{title}</h3>
      {blockingSteps(props.refusals).map((step, i) => {
        const shown = step.refusals.find(
          r => r.candidate && Object.keys(r.counterexample ?? {}).length > 0
        );
        return (
          <div
            key={i}
            className="jp-MagicPush-refusal"
            data-event={step.event ?? undefined}
          >
            <p>
              <TextWithCellLinks
                text={
                  shown
                    ? withoutInlineRows(step.note, shown.candidate)
                    : step.note
                }
              />
            </p>
            {shown && (
              <>
                <p>
                  <code>{shown.candidate}</code> at the source would change the
                  result on these rows:
                </p>
                {Object.entries(shown.counterexample).map(([name, rows]) => (
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
