import * as React from 'react';

import { ISuggestion } from '../tokens';
import { CellDiffs, Highlighter, SideBySideButton } from './CellDiff';
import { SuggestionApplyButton } from './ApplyButtons';
import { Why } from './Why';
import { CellLinks, useCellsText } from './CellLink';
import { ProofSteps } from './ProofSteps';
import { RowReduction } from './RowReduction';
import { ScanFilters } from './ScanFilters';
import { useAction } from './useAction';
import { RunTime } from './RunTime';
import { RerunNote } from './Rerun';
import { RunTime as RunTimeState } from '../model';

export interface ISuggestionCardProps {
  suggestion: ISuggestion;
  applied: boolean;
  /** Name the pipeline: the result holds suggestions for more than one. */
  showPipeline?: boolean;
  highlight?: Highlighter | null;
  onApply: () => void;
  /** Restore the cells the suggestion rewrote. */
  onUndo: () => void;
  /** Rows are being counted on the kernel right now. */
  counting?: boolean;
  /** After Apply: run the notebook from the first rewritten cell down. */
  onRerun: () => Promise<void>;
  /** Its "Measure run time", when asked for. */
  runtime?: RunTimeState;
  onMeasureRunTime: () => void;
  /** Stop a running "Measure run time". */
  onCancelRunTime: () => void;
  /** Open its diff in a main-area tab, two columns wide; without it, no such button. */
  onOpenSideBySide?: (() => Promise<void>) | null;
}

/** The button that shows and hides the before/after of a suggestion's cells. */
export function DiffButton(props: {
  open: boolean;
  onToggle: () => void;
  what: string;
}): JSX.Element {
  return (
    <button
      className="jp-Button jp-mod-styled jp-MagicPush-diffToggle"
      aria-expanded={props.open}
      aria-label={`Diff: ${props.open ? 'hide' : 'show'} the changes ${props.what}`}
      onClick={props.onToggle}
    >
      {/* one label either way, so that the buttons beside it never move; pressed while open */}
      Diff
    </button>
  );
}

/** Restores the cells a suggestion rewrote, all at once. */
export function UndoButton(props: {
  what: string;
  onUndo: () => void;
}): JSX.Element {
  return (
    <button
      className="jp-Button jp-mod-styled jp-MagicPush-undo"
      onClick={props.onUndo}
      aria-label={`Undo suggestion: restore ${props.what} to the code before it was applied`}
    >
      Undo
    </button>
  );
}

const KIND_HELP = {
  equivalent:
    'Equivalent: the filter at the source keeps exactly the rows the late filter keeps, so it replaces it.',
  superset:
    'Superset: the filter at the source keeps every row the late filter keeps, and some more; the late filter stays.'
};

/** What a suggestion does with the late filter, in plain words (its kind is the tooltip). */
export const KIND_WORDS = {
  equivalent: 'replaces the late filter',
  superset: 'added; late filter kept'
};

/** One proved pushdown: the predicate, its proof and an Apply button. */
export function SuggestionCard(props: ISuggestionCardProps): JSX.Element {
  const { suggestion, applied, showPipeline, onApply, onUndo, highlight } =
    props;
  const [error, act] = useAction();
  const [diffOpen, setDiffOpen] = React.useState(false);
  const [whyOpen, setWhyOpen] = React.useState(false);
  const positions = suggestion.cells.map(c => c.index);
  const cellsText = useCellsText(positions);
  return (
    <article
      className="jp-MagicPush-card"
      aria-label={`Pushdown onto ${suggestion.source}`}
    >
      <header className="jp-MagicPush-cardHeader">
        <span className="jp-MagicPush-source">
          source <code>{suggestion.source}</code>
          {showPipeline && suggestion.pipeline && (
            <>
              {' '}
              for <code>{suggestion.pipeline}</code>
            </>
          )}
        </span>
        <span
          className={`jp-MagicPush-kind jp-MagicPush-kind-${suggestion.kind}`}
          title={KIND_HELP[suggestion.kind]}
        >
          {KIND_WORDS[suggestion.kind]}
        </span>
      </header>
      <pre className="jp-MagicPush-predicate">{suggestion.predicate}</pre>
      <ProofSteps steps={suggestion.proof} />
      <RowReduction
        suggestion={suggestion}
        counting={props.counting}
        timed={props.runtime?.status === 'done'}
      />
      <ScanFilters scan={suggestion.scan_filters} />
      {suggestion.ranked && (
        <p
          className="jp-MagicPush-muted"
          title={(suggestion.alternatives ?? [])
            .map(a => a.predicate)
            .join('\n')}
        >
          Chosen among {(suggestion.alternatives ?? []).length + 1} proved
          predicates: {suggestion.ranked}
        </p>
      )}
      {suggestion.may_hide_errors && (
        <p className="jp-MagicPush-caveat">
          The original pipeline can raise an error on a row that the rewritten
          one filters out first.
        </p>
      )}
      <footer className="jp-MagicPush-cardFooter">
        <SuggestionApplyButton
          suggestion={suggestion}
          applied={applied}
          onApply={() => act(onApply)}
        />
        {applied && <UndoButton what={cellsText} onUndo={() => act(onUndo)} />}
        {suggestion.cells.length > 0 && (
          <DiffButton
            open={diffOpen}
            onToggle={() => setDiffOpen(!diffOpen)}
            what={`to ${cellsText}`}
          />
        )}
        <button
          className="jp-Button jp-mod-styled jp-MagicPush-whyToggle"
          aria-expanded={whyOpen}
          aria-label={`Why: ${whyOpen ? 'hide' : 'show'} why filtering ${suggestion.source} is correct`}
          onClick={() => setWhyOpen(!whyOpen)}
        >
          Why
        </button>
        {positions.length > 0 && (
          <span className="jp-MagicPush-muted">
            <CellLinks positions={positions} />
          </span>
        )}
      </footer>
      {applied && (
        <RerunNote cells={suggestion.cells} onRerun={props.onRerun} />
      )}
      <RunTime
        time={props.runtime}
        onMeasure={props.onMeasureRunTime}
        onCancel={props.onCancelRunTime}
        source={suggestion.source}
      />
      {whyOpen && <Why suggestion={suggestion} />}
      {diffOpen && props.onOpenSideBySide && (
        <SideBySideButton
          what={`to ${cellsText}`}
          onOpen={props.onOpenSideBySide}
        />
      )}
      {diffOpen && (
        <CellDiffs changes={suggestion.cells} highlight={highlight ?? null} />
      )}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}
