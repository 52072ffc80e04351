import * as React from 'react';

import { IProofStep } from '../tokens';
import { pluralRows } from './format';

/** The operators a predicate was pushed through, each with its proof category. */
export function ProofSteps(props: { steps: IProofStep[] }): JSX.Element {
  if (props.steps.length === 0) {
    return (
      <p className="jp-MagicPush-muted">Pushed directly onto the source.</p>
    );
  }
  return (
    <ol className="jp-MagicPush-proof" aria-label="Proof steps">
      {props.steps.map((step, i) => (
        <li key={i} className="jp-MagicPush-proofStep">
          <span className="jp-MagicPush-category">{step.category}</span>
          <span className="jp-MagicPush-operator">{step.operator}</span>
          <span className="jp-MagicPush-baseCase">
            base case: {pluralRows(step.base_case_rows)}
          </span>
          {step.kind === 'superset' && (
            <span className="jp-MagicPush-stepKind">superset</span>
          )}
        </li>
      ))}
    </ol>
  );
}
