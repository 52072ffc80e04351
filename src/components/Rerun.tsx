import * as React from 'react';

import { messageOf } from '../model';
import { ICellChange } from '../tokens';
import { useCellsText } from './CellLink';

type Stage =
  | { status: 'stale' }
  | { status: 'running' }
  | { status: 'done' }
  | { status: 'error'; message: string };

/**
 * After Apply: the cells hold the filter, but the kernel still holds the DataFrames made
 * before. Says so, and re-runs the notebook from the first rewritten cell down on request.
 */
export function RerunNote(props: {
  cells: ICellChange[];
  onRerun: () => Promise<void>;
  /** What the kernel's DataFrames do once re-run, after "they": a fold's say its plan. */
  after?: string;
}): JSX.Element | null {
  const after = props.after ?? 'read the filtered source';
  const [stage, setStage] = React.useState<Stage>({ status: 'stale' });
  const positions = props.cells.map(c => c.index);
  const first = useCellsText(
    positions.length > 0 ? [Math.min(...positions)] : []
  );
  if (props.cells.length === 0) {
    return null;
  }
  const rerun = (): void => {
    setStage({ status: 'running' });
    props
      .onRerun()
      .then(() => setStage({ status: 'done' }))
      .catch(reason =>
        setStage({ status: 'error', message: messageOf(reason) })
      );
  };
  return <div className="jp-MagicPush-rerun">{content()}</div>;

  function content(): JSX.Element {
    switch (stage.status) {
      case 'stale':
        return (
          <>
            <p className="jp-MagicPush-muted">
              The kernel still holds the DataFrames made before the rewrite;
              they {after} once the cells run again.
            </p>
            <button
              className="jp-Button jp-mod-styled jp-MagicPush-rerunButton"
              onClick={rerun}
              aria-label={`Re-run the affected cells: run the notebook from ${first} down`}
            >
              Re-run from {first}
            </button>
          </>
        );
      case 'running':
        return (
          <p className="jp-MagicPush-muted" role="status">
            Running the notebook from {first} down…
          </p>
        );
      case 'done':
        return (
          <p className="jp-MagicPush-muted" role="status">
            Ran from {first} down: the kernel&apos;s DataFrames now {after}.
          </p>
        );
      case 'error':
        return (
          <p className="jp-MagicPush-error" role="alert">
            {stage.message}
          </p>
        );
    }
  }
}
