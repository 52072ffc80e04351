import * as React from 'react';

import { IProofStep } from '../tokens';
import { categoryWords } from '../why';
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
          {/* plain words first, the paper's terms after */}
          <span className="jp-MagicPush-operator">
            {step.operator}, checked {categoryWords(step)}
          </span>
          <span
            className="jp-MagicPush-category"
            title="The proof category of this step, as the paper names it"
          >
            {step.category}
          </span>
          <span className="jp-MagicPush-baseCase">
            base case: {pluralRows(step.base_case_rows)}
          </span>
          {step.kind === 'superset' && (
            <span className="jp-MagicPush-stepKind">keeps a superset</span>
          )}
        </li>
      ))}
    </ol>
  );
}
