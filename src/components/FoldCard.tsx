import * as React from 'react';

import { foldDepth, foldTitle } from '../folds';
import { IFold } from '../tokens';
import { CellDiffs, Highlighter, SideBySideButton } from './CellDiff';
import { CellLinks, useCellsText } from './CellLink';
import { FoldApplyButton } from './ApplyButtons';
import { RerunNote } from './Rerun';
import { DiffButton, UndoButton } from './SuggestionCard';
import { useAction } from './useAction';

export interface IFoldCardProps {
  fold: IFold;
  applied: boolean;
  highlight?: Highlighter | null;
  onApply: () => void;
  /** Restore the cells the fold rewrote. */
  onUndo: () => void;
  /** After Apply: run the notebook from the first rewritten cell down. */
  onRerun: () => Promise<void>;
  /** Open its diff in a main-area tab, two columns wide; without it, no such button. */
  onOpenSideBySide?: (() => Promise<void>) | null;
}

/**
 * A chain of withColumn calls that nears Spark's depth limits, offered as withColumns calls:
 * why, where, its diff, and Apply and Undo through the model, as a suggestion's are.
 */
export function FoldCard(props: IFoldCardProps): JSX.Element {
  const { fold, applied, onApply, onUndo } = props;
  const [error, act] = useAction();
  const [diffOpen, setDiffOpen] = React.useState(false);
  const positions = fold.cells.map(c => c.index);
  const cellsText = useCellsText(positions);
  const title = foldTitle(fold);
  return (
    <article className="jp-MagicPush-card jp-MagicPush-fold" aria-label={title}>
      <header className="jp-MagicPush-cardHeader">
        <h3 className="jp-MagicPush-foldTitle">{title}</h3>
        <span className="jp-MagicPush-kind jp-MagicPush-kind-fold">
          {foldDepth(fold)}
        </span>
      </header>
      <p className="jp-MagicPush-foldReason">{fold.reason}</p>
      {fold.pipeline && (
        <p className="jp-MagicPush-muted jp-MagicPush-source">
          pipeline <code>{fold.pipeline}</code>
        </p>
      )}
      <footer className="jp-MagicPush-cardFooter">
        <FoldApplyButton
          fold={fold}
          applied={applied}
          onApply={() => act(onApply)}
        />
        {applied && <UndoButton what={cellsText} onUndo={() => act(onUndo)} />}
        {fold.cells.length > 0 && (
          <DiffButton
            open={diffOpen}
            onToggle={() => setDiffOpen(!diffOpen)}
            what={`to ${cellsText}`}
          />
        )}
        {positions.length > 0 && (
          <span className="jp-MagicPush-muted">
            <CellLinks positions={positions} />
          </span>
        )}
      </footer>
      {applied && (
        <RerunNote
          cells={fold.cells}
          onRerun={props.onRerun}
          after="hold the folded, shallower plan"
        />
      )}
      {diffOpen && props.onOpenSideBySide && (
        <SideBySideButton
          what={`to ${cellsText}`}
          onOpen={props.onOpenSideBySide}
        />
      )}
      {diffOpen && (
        <CellDiffs changes={fold.cells} highlight={props.highlight ?? null} />
      )}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}
