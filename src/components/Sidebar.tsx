import { ReactWidget } from '@jupyterlab/ui-components';
import * as React from 'react';

import { Fix, fixesFor } from '../fixes';
import { TracingStatus } from '../kernel';
import { FixButtons } from './FixButtons';
import {
  IInPlace,
  MagicPushModel,
  Measuring,
  ModelState,
  RunTime
} from '../model';
import { IOptimizeResult, ITogether } from '../tokens';
import { DiffTarget, OpenSideBySide } from '../sideBySide';
import { CellDiffs, Highlighter, SideBySideButton } from './CellDiff';
import { NotInBulk, TogetherApplyButton } from './ApplyButtons';
import {
  DiffButton,
  KIND_WORDS,
  SuggestionCard,
  UndoButton
} from './SuggestionCard';
import { useAction } from './useAction';
import { FoldCard } from './FoldCard';
import { foldsSentence } from '../folds';
import { byValue, notInBulk } from '../value';
import { useModel } from './useModel';
import { PipelineGraph } from './PipelineGraph';
import { WhyNot } from './Why';
import { blockedEvents, otherNotes } from '../why';
import {
  CellLinks,
  ModelContext,
  TextWithCellLinks,
  useCellsText
} from './CellLink';

interface IView {
  state: ModelState;
  hasNotebook: boolean;
  tracing: TracingStatus | null;
  serverProblem: string | null;
  allPipelines: boolean;
}

function viewOf(model: MagicPushModel): IView {
  return {
    state: model.state,
    hasNotebook: model.notebook !== null,
    tracing: model.tracing,
    serverProblem: model.serverProblem,
    allPipelines: model.allPipelines
  };
}

function Tracing(props: {
  tracing: TracingStatus | null;
  onFix: (fix: Fix) => Promise<void>;
}): JSX.Element | null {
  const { tracing } = props;
  if (tracing === null) {
    return null;
  }
  switch (tracing.status) {
    case 'waiting':
      return (
        <p className="jp-MagicPush-tracing jp-MagicPush-muted">
          Waiting for the kernel…
        </p>
      );
    case 'loading':
      return (
        <p className="jp-MagicPush-tracing jp-MagicPush-muted">
          Loading the kernel extension…
        </p>
      );
    case 'on':
      return (
        <p
          className="jp-MagicPush-tracing jp-MagicPush-muted"
          data-tracing="on"
        >
          PySpark tracing is on in this kernel.
        </p>
      );
    case 'failed':
      return (
        <div
          className="jp-MagicPush-tracing jp-MagicPush-error"
          data-tracing="failed"
        >
          Tracing is off: {tracing.error.message}
          <FixButtons
            fixes={fixesFor(tracing.error.kind)}
            onFix={props.onFix}
          />
        </div>
      );
  }
}

function Notes(props: { title: string; items: string[] }): JSX.Element | null {
  if (props.items.length === 0) {
    return null;
  }
  return (
    <section className="jp-MagicPush-notes" aria-label={props.title}>
      <h3>{props.title}</h3>
      <ul>
        {props.items.map((item, i) => (
          <li key={i}>
            <TextWithCellLinks text={item} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * What an earlier Apply put in the cells and is still there: not offered again, and its Undo
 * kept until one of its cells is edited.
 */
function InPlaceList(props: {
  entries: ReadonlyArray<IInPlace>;
  onUndo: (index: number) => void;
}): JSX.Element | null {
  const [error, run] = useAction();
  if (props.entries.length === 0) {
    return null;
  }
  return (
    <section className="jp-MagicPush-inplace" aria-label="Already applied">
      <h3>Already applied</h3>
      <ul>
        {props.entries.map((entry, i) => (
          <li key={i}>
            <code>{entry.label}</code>{' '}
            <UndoButton
              what={`the cells of ${entry.label}`}
              onUndo={() => run(() => props.onUndo(i))}
            />
          </li>
        ))}
      </ul>
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

const TOGETHER_HELP = {
  equivalent: 'Every filter goes to its source and the late filter is removed.',
  superset:
    'Every filter goes to its source; the late filter is kept, since not all of them replace it.'
};

/** A pipeline's suggestions as one rewrite: the way to apply more than one of them. */
function TogetherCard(props: {
  together: ITogether;
  /** Its filters counted to remove no rows: then it is not applied in bulk. */
  worthless: string[];
  applied: boolean;
  onApply: () => void;
  onUndo: () => void;
  highlight: Highlighter | null;
  onOpenSideBySide: (() => Promise<void>) | null;
}): JSX.Element {
  const { together, applied, onApply, onUndo } = props;
  const [error, act] = useAction();
  const [diffOpen, setDiffOpen] = React.useState(false);
  const positions = together.cells.map(c => c.index);
  const cells = useCellsText(positions);
  return (
    <section
      className="jp-MagicPush-together"
      aria-label={`All filters of pipeline ${together.pipeline}`}
    >
      <p>
        Pipeline <code>{together.pipeline}</code>: its {together.suggestions}{' '}
        filters were proved together{' '}
        <span
          className={`jp-MagicPush-kind jp-MagicPush-kind-${together.kind}`}
          title={TOGETHER_HELP[together.kind]}
        >
          {KIND_WORDS[together.kind]}
        </span>
      </p>
      <NotInBulk notInBulk={props.worthless} applied={applied} />
      <TogetherApplyButton
        together={together}
        applied={applied}
        notInBulk={props.worthless}
        onApply={() => act(onApply)}
      />
      {applied && <UndoButton what={cells} onUndo={() => act(onUndo)} />}
      <DiffButton
        open={diffOpen}
        onToggle={() => setDiffOpen(!diffOpen)}
        what={`of all filters of pipeline ${together.pipeline}`}
      />
      <span className="jp-MagicPush-muted">
        {' '}
        <CellLinks positions={positions} />
      </span>
      {diffOpen && props.onOpenSideBySide && (
        <SideBySideButton
          what={`of all filters of pipeline ${together.pipeline}`}
          onOpen={props.onOpenSideBySide}
        />
      )}
      {diffOpen && (
        <CellDiffs changes={together.cells} highlight={props.highlight} />
      )}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** A stage of the run, with the way to stop it when there is one. */
function Progress(props: {
  text: string;
  onCancel: (() => void) | null;
}): JSX.Element {
  return (
    <p className="jp-MagicPush-progress" role="status" aria-live="polite">
      <span className="jp-MagicPush-spinner" aria-hidden="true" />
      {props.text}
      {props.onCancel && (
        <button
          className="jp-Button jp-mod-styled jp-mod-reject jp-MagicPush-cancel"
          onClick={props.onCancel}
          aria-label={`Cancel: ${props.text.replace('…', '')}`}
        >
          Cancel
        </button>
      )}
    </p>
  );
}

/** The result's first line: how many filters can move, or why none is offered. */
function Headline(props: {
  result: IOptimizeResult;
  inPlace: boolean;
  failed: boolean;
  notebookName: string;
}): JSX.Element | null {
  const { result } = props;
  const count = result.suggestions.length;
  // a result whose only finding is a fold says so first, never "nothing moves" alone
  const folds = foldsSentence(result.folds ?? []);
  if (count > 0) {
    const seconds = `${result.optimizer_seconds.toFixed(2)} s`;
    return (
      <p className="jp-MagicPush-muted" role="status">
        {count === 1
          ? '1 filter can move to a source, proved'
          : `${count} filters can move to a source, proved`}{' '}
        for {props.notebookName} ({seconds}){folds && `; ${folds}`}
      </p>
    );
  }
  if (props.failed) {
    return null; // the failed cell says why, with its fix
  }
  // the fold first: it is what this result offers
  const foldFirst = folds && `${folds}, below. `;
  if (props.inPlace) {
    return (
      <p className="jp-MagicPush-empty" role="status">
        {foldFirst}Already applied: the filters that can move are at their
        sources; nothing more moves.
      </p>
    );
  }
  return (
    <p className="jp-MagicPush-empty" role="status">
      {foldFirst}No filter can move to a source of this pipeline
      {(result.refusals ?? []).length > 0
        ? '; the step that stops it is marked in the graph and said below.'
        : '.'}
    </p>
  );
}

function Result(props: {
  model: MagicPushModel;
  highlight: Highlighter | null;
  openSideBySide: OpenSideBySide | null;
  result: IOptimizeResult;
  applied: ReadonlySet<number>;
  appliedTogether: ReadonlySet<string>;
  appliedFolds: ReadonlySet<number>;
  runtimes: ReadonlyMap<number, RunTime>;
  measuring: Measuring;
  notebookName: string;
  inPlace: ReadonlyArray<IInPlace>;
}): JSX.Element {
  const {
    model,
    result,
    applied,
    appliedTogether,
    appliedFolds,
    runtimes,
    measuring
  } = props;
  const sideBySide = (target: DiffTarget): (() => Promise<void>) | null => {
    const open = props.openSideBySide;
    return open ? () => open(target) : null;
  };
  // filters from an earlier Apply: kept in the cells (the panel's list) or met by the walk
  const inPlace =
    props.inPlace.length > 0 || (result.already_applied ?? []).length > 0;
  const pipelines = new Set(result.suggestions.map(s => s.pipeline)).size;
  const failed = result.failed_cell ?? null;
  return (
    <div className="jp-MagicPush-result">
      {failed && (
        <div className="jp-MagicPush-failedCell">
          <p className="jp-MagicPush-error" role="alert">
            <TextWithCellLinks
              text={`cell [${failed.execution_count}] failed (${failed.error}); the cells after it have not run.`}
            />
          </p>
          <FixButtons fixes={['run-all']} onFix={fix => model.fix(fix)} />
        </div>
      )}
      <Headline
        result={result}
        inPlace={inPlace}
        failed={failed !== null}
        notebookName={props.notebookName}
      />
      <InPlaceList entries={props.inPlace} onUndo={i => model.undoInPlace(i)} />
      {(result.pipelines ?? []).map(graph => {
        const mine = result.suggestions.filter(s => s.pipeline === graph.name);
        return (
          <PipelineGraph
            key={graph.name}
            graph={graph}
            blocked={blockedEvents(result.refusals ?? [], graph.name)}
            lateFilters={new Set(mine.map(s => s.late_filter_event ?? -1))}
            targets={new Set(mine.map(s => s.source_event))}
          />
        );
      })}
      {measuring === 'running' && (
        <Progress
          text="Counting rows on the notebook's kernel…"
          onCancel={() => model.cancel()}
        />
      )}
      {measuring === 'cancelled' && (
        <p className="jp-MagicPush-muted" role="status">
          Row counting was cancelled (the kernel was interrupted and its Spark
          jobs stopped); the suggestions stand, unmeasured.
        </p>
      )}
      {(result.together ?? []).map(together => (
        <TogetherCard
          key={together.pipeline}
          together={together}
          worthless={notInBulk(result, together)}
          applied={appliedTogether.has(together.pipeline)}
          onApply={() => model.applyTogether(together.pipeline)}
          onUndo={() => model.undoTogether(together.pipeline)}
          highlight={props.highlight}
          onOpenSideBySide={sideBySide({
            kind: 'together',
            pipeline: together.pipeline
          })}
        />
      ))}
      {byValue(result.suggestions).map(i => (
        <SuggestionCard
          key={i}
          suggestion={result.suggestions[i]}
          applied={applied.has(i)}
          showPipeline={pipelines > 1}
          highlight={props.highlight}
          onApply={() => model.apply(i)}
          onUndo={() => model.undo(i)}
          onRerun={() => model.rerunFrom(result.suggestions[i].cells)}
          counting={measuring === 'running'}
          runtime={runtimes.get(i)}
          onMeasureRunTime={() => void model.measureRunTime(i)}
          onCancelRunTime={() => model.cancelRunTime(i)}
          onOpenSideBySide={sideBySide({ kind: 'one', index: i })}
        />
      ))}
      {(result.folds ?? []).map((fold, i) => (
        <FoldCard
          key={`fold-${i}`}
          fold={fold}
          applied={appliedFolds.has(i)}
          highlight={props.highlight}
          onApply={() => model.applyFold(i)}
          onUndo={() => model.undoFold(i)}
          onRerun={() => model.rerunFrom(fold.cells)}
          onOpenSideBySide={sideBySide({ kind: 'fold', index: i })}
        />
      ))}
      <WhyNot
        refusals={result.refusals ?? []}
        nothingPushed={result.suggestions.length === 0}
      />
      <Notes
        title="Stays in the late filter"
        items={(result.left_behind ?? []).map(b => b.note)}
      />
      <Notes
        title="Notes"
        items={otherNotes(result.notes, result.refusals ?? []).filter(
          note =>
            !(result.left_behind ?? []).some(b => b.note === note) &&
            !(
              failed &&
              note.startsWith(`cell [${failed.execution_count}] failed`)
            )
        )}
      />
      <Notes title="Measurement problems" items={result.measure_errors} />
    </div>
  );
}

function Body(props: {
  model: MagicPushModel;
  state: ModelState;
  highlight: Highlighter | null;
  openSideBySide: OpenSideBySide | null;
}): JSX.Element | null {
  const { model, state } = props;
  switch (state.status) {
    case 'idle':
      return (
        <p className="jp-MagicPush-muted">
          Run the notebook's PySpark pipeline, then look for filters that can
          move to its sources.
        </p>
      );
    case 'running':
      return (
        <Progress
          text={state.stage}
          // a fix's work (cells running, a kernel switching) is the notebook's own
          onCancel={model.cancellable ? () => model.cancel() : null}
        />
      );
    case 'error':
      return (
        <div>
          {state.notice ? (
            <p className="jp-MagicPush-notice" role="note">
              {state.message}
            </p>
          ) : (
            <p className="jp-MagicPush-error" role="alert">
              {state.message}
            </p>
          )}
          <FixButtons fixes={state.fixes} onFix={fix => model.fix(fix)} />
        </div>
      );
    case 'done':
      return (
        <Result
          model={model}
          highlight={props.highlight}
          openSideBySide={props.openSideBySide}
          result={state.result}
          applied={state.applied}
          appliedTogether={state.appliedTogether}
          appliedFolds={state.appliedFolds}
          runtimes={state.runtimes}
          measuring={state.measuring}
          notebookName={state.notebook.title.label}
          inPlace={state.inPlace}
        />
      );
  }
}

export function SidebarView(props: {
  model: MagicPushModel;
  highlight: Highlighter | null;
  /** Opens a suggestion's diff in a main-area tab; null: no "Open side by side". */
  openSideBySide?: OpenSideBySide | null;
}): JSX.Element {
  const { model } = props;
  const { state, hasNotebook, tracing, serverProblem, allPipelines } = useModel(
    model,
    viewOf
  );
  const running = state.status === 'running';
  const root = React.useRef<HTMLDivElement>(null);
  const optimizeButton = React.useRef<HTMLButtonElement>(null);
  React.useEffect(() => {
    // Keyboard users keep their place: Optimize is disabled while a run goes on, so focus
    // moves to Cancel, and back to Optimize when the run ends.
    const active = document.activeElement;
    const lost =
      active === null ||
      active === document.body ||
      !active.isConnected ||
      (active instanceof HTMLButtonElement && active.disabled);
    if (!root.current || !(lost || root.current.contains(active))) {
      return;
    }
    if (running) {
      root.current.querySelector<HTMLElement>('.jp-MagicPush-cancel')?.focus();
    } else if (lost) {
      optimizeButton.current?.focus();
    }
  }, [running]);
  return (
    <ModelContext.Provider value={model}>
      <div
        ref={root}
        className="jp-MagicPush-sidebar"
        onKeyDown={event => {
          // Escape stops a run (search, or row counting) from anywhere in the panel
          if (event.key === 'Escape' && model.cancellable) {
            event.stopPropagation();
            model.cancel();
          }
        }}
      >
        <header className="jp-MagicPush-header">
          <h2>MagicPush</h2>
          <button
            ref={optimizeButton}
            className="jp-Button jp-mod-styled jp-mod-accept"
            onClick={() => void model.optimize()}
            disabled={running || !hasNotebook}
            aria-label="Optimize pipeline"
            title="Find filters that can be proved safe to apply at the pipeline's sources"
          >
            Optimize pipeline
          </button>
          <label
            className="jp-MagicPush-option"
            title="Look at every pipeline of the notebook, not only the longest one"
          >
            <input
              type="checkbox"
              checked={allPipelines}
              disabled={running}
              onChange={event => {
                model.allPipelines = event.currentTarget.checked;
              }}
            />
            every pipeline
          </label>
        </header>
        {!hasNotebook && (
          <p className="jp-MagicPush-notice" role="note">
            The active tab is not a notebook. Open a notebook to optimize its
            PySpark pipeline.
          </p>
        )}
        {serverProblem && (
          <p className="jp-MagicPush-error" role="alert">
            {serverProblem}
          </p>
        )}
        {hasNotebook && (
          <Tracing tracing={tracing} onFix={fix => model.fix(fix)} />
        )}
        <Body
          model={model}
          state={state}
          highlight={props.highlight}
          openSideBySide={props.openSideBySide ?? null}
        />
      </div>
    </ModelContext.Provider>
  );
}

/** The right-sidebar panel. */
export class MagicPushSidebar extends ReactWidget {
  constructor(
    private readonly _model: MagicPushModel,
    private readonly _highlight: Highlighter | null = null,
    private readonly _openSideBySide: OpenSideBySide | null = null
  ) {
    super();
    this.addClass('jp-MagicPush-panel');
  }

  protected render(): JSX.Element {
    return (
      <SidebarView
        model={this._model}
        highlight={this._highlight}
        openSideBySide={this._openSideBySide}
      />
    );
  }
}
