import { Cell, ICodeCellModel } from '@jupyterlab/cells';
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { IStateDB } from '@jupyterlab/statedb';
import { ReadonlyPartialJSONValue } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';

import {
  CancelledError,
  health,
  measure,
  optimize,
  runtime,
  ServerError
} from './api';
import {
  Fix,
  fixesFor,
  NOT_A_PYSPARK_NOTEBOOK,
  usesPySpark,
  NOTHING_TRACED,
  serverTracingError,
  TracingError
} from './fixes';
import {
  KernelExtensionLoader,
  pullTraceStatus,
  TracingStatus
} from './kernel';
import { ICellRef } from './cellRefs';
import { foldLabel } from './folds';
import { asStored, restorable, storeKey } from './resultStore';
import { ICellRewrite, rewriteCells } from './rewrite';
import { sampleFraction } from './settings';
import {
  DEFAULT_SETTINGS,
  ICellChange,
  IFold,
  INotebookCellPayload,
  IOptimizeResult,
  IRuntimeResult,
  ISettings,
  ISuggestion,
  ITogether
} from './tokens';

/** What the optimizer is doing while a request runs. */
export type Stage =
  | 'Reading trace…'
  | "Waiting for the kernel's running cell…"
  | 'Searching and verifying…'
  | 'Running all cells…'
  | 'Starting Spark…'
  | 'Installing PySpark in the kernel…'
  | 'Switching the kernel…'
  | 'Turning tracing on…';

/** What the panel shows while a fix button's work goes on (the error it fixes is gone). */
const FIX_STAGE: Record<Fix, Stage> = {
  'run-all': 'Running all cells…',
  'start-spark': 'Starting Spark…',
  'install-pyspark': 'Installing PySpark in the kernel…',
  'switch-kernel': 'Switching the kernel…',
  'load-extension': 'Turning tracing on…'
};

/** A suggestion's "Measure run time": running, its figures, or why there are none. */
export type RunTime =
  | { status: 'running'; started: number }
  | { status: 'done'; result: IRuntimeResult }
  | { status: 'cancelled' }
  | { status: 'error'; message: string };

/** Where row counting stands for a shown result. */
export type Measuring = 'off' | 'running' | 'done' | 'cancelled';

export type ModelState =
  | { status: 'idle' }
  | { status: 'running'; stage: Stage }
  | {
      status: 'done';
      result: IOptimizeResult;
      notebook: NotebookPanel;
      /** Indices of the suggestions applied, alone or with their pipeline's others. */
      applied: ReadonlySet<number>;
      /** Pipelines whose joint rewrite ("Apply all") is applied. */
      appliedTogether: ReadonlySet<string>;
      /** Indices of the result's folds (withColumn chains as withColumns) applied. */
      appliedFolds: ReadonlySet<number>;
      /** Run-time measurements asked for, by suggestion index. */
      runtimes: ReadonlyMap<number, RunTime>;
      /** Which optimization this is: measuring and applying change the state, not the run. */
      run: number;
      /** The notebook's cell ids when it was optimized: a result's cell positions refer to them. */
      cellIds: ReadonlyArray<string | null>;
      /** The notebook's cell sources when it was optimized. */
      sources: ReadonlyArray<string>;
      measuring: Measuring;
      /** Rewrites applied from an earlier result whose cells still hold them, each with its Undo. */
      inPlace: ReadonlyArray<IInPlace>;
    }
  | {
      status: 'error';
      message: string;
      fixes: Fix[];
      /** Not a failure (a notebook without PySpark): shown as a notice, not an alert. */
      notice?: boolean;
    };

/** A notebook's result as shown, or kept while its tab is not in view. */
export type DoneState = Extract<ModelState, { status: 'done' }>;

/**
 * A rewrite applied from an earlier result while its cells still hold it: optimizing again
 * does not offer it twice (the engine reports the filter as already in place), and its Undo
 * stays until one of its cells is edited.
 */
export interface IInPlace {
  /** What was applied, in the words of its card: `F.col("v") > 1 on df`, or a pipeline's filters. */
  label: string;
  /** The cell changes that take it back out, each found by its cell's id where known. */
  undo: ReadonlyArray<ICellRewrite>;
}

/** The rewrites `state` applied (and those it carried), as they can be undone later. */
function appliedRewrites(state: DoneState): IInPlace[] {
  const back = (changes: ReadonlyArray<ICellChange>): ICellRewrite[] =>
    changes.map(c => {
      const id = state.cellIds[c.index] ?? null;
      return id
        ? { cell_id: id, original: c.rewritten, rewritten: c.original }
        : { index: c.index, original: c.rewritten, rewritten: c.original };
    });
  const found: IInPlace[] = [...state.inPlace];
  const inJoint = new Set<number>();
  for (const joint of state.result.together ?? []) {
    if (state.appliedTogether.has(joint.pipeline)) {
      state.result.suggestions.forEach((s, i) => {
        if (s.pipeline === joint.pipeline) {
          inJoint.add(i);
        }
      });
      found.push({
        label: `the ${joint.suggestions} filters of pipeline ${joint.pipeline}, applied together`,
        undo: back(joint.cells)
      });
    }
  }
  state.result.suggestions.forEach((s, i) => {
    if (state.applied.has(i) && !inJoint.has(i)) {
      found.push({
        label: `${s.predicate} on ${s.source}`,
        undo: back(s.cells)
      });
    }
  });
  (state.result.folds ?? []).forEach((f, i) => {
    if (state.appliedFolds.has(i)) {
      found.push({ label: foldLabel(f), undo: back(f.cells) });
    }
  });
  return found;
}

/** Whether every cell of `entry` still holds the code the rewrite wrote. */
function stillInPlace(panel: NotebookPanel, entry: IInPlace): boolean {
  const model = panel.content.model;
  if (!model) {
    return false;
  }
  return entry.undo.every(change => {
    let cell = null;
    for (let i = 0; i < model.cells.length; i++) {
      const c = model.cells.get(i);
      if (change.cell_id ? c.id === change.cell_id : i === change.index) {
        cell = c;
        break;
      }
    }
    return cell !== null && cell.sharedModel.getSource() === change.original;
  });
}

/** A result as it is first shown: nothing applied or timed yet, its notebook's cells as they were. */
function freshResult(
  result: IOptimizeResult,
  notebook: NotebookPanel,
  run: number,
  cells: ReadonlyArray<{ id: string | null; source: string }>,
  measuring: Measuring,
  inPlace: ReadonlyArray<IInPlace> = []
): DoneState {
  return {
    status: 'done',
    result,
    notebook,
    applied: new Set(),
    appliedTogether: new Set(),
    appliedFolds: new Set(),
    runtimes: new Map(),
    run,
    cellIds: cells.map(c => c.id),
    sources: cells.map(c => c.source),
    measuring,
    inPlace
  };
}

/**
 * The cell of a result at notebook `position` (as the notebook was when optimized): followed
 * by its id if cells moved since, or null when it is gone.
 */
export function cellOfResult(done: DoneState, position: number): Cell | null {
  const id = done.cellIds[position];
  const widgets = done.notebook.content.widgets;
  return (
    (id ? widgets.find(w => w.model.id === id) : widgets[position]) ?? null
  );
}

/** The count a cell's prompt shows, or null (not run, or not a code cell). */
export function promptCount(cell: Cell | null): number | null {
  if (!cell || cell.model.type !== 'code') {
    return null;
  }
  return (cell.model as ICodeCellModel).executionCount ?? null;
}

const NOT_A_NOTEBOOK =
  'The active tab is not a notebook. Open a notebook to optimize its PySpark pipeline.';

export function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

/** The cells of a notebook, in order, as the server expects them. */
export function notebookCells(panel: NotebookPanel): INotebookCellPayload[] {
  const cells: INotebookCellPayload[] = [];
  const model = panel.content.model;
  if (!model) {
    return cells;
  }
  for (let i = 0; i < model.cells.length; i++) {
    const cell = model.cells.get(i);
    cells.push({
      source: cell.sharedModel.getSource(),
      cell_type: cell.type,
      id: cell.id ?? null
    });
  }
  return cells;
}

/** Code of the cell that "Insert a cell that starts Spark" puts at the top of a notebook. */
export const START_SPARK =
  'from pyspark.sql import SparkSession, functions as F\n' +
  'spark = SparkSession.builder.getOrCreate()';

/** Installs PySpark (and the pandas it works with) into the kernel's environment. */
export const INSTALL_PYSPARK = '%pip install "pyspark>=4.0" "pandas>=2.2,<3"';

/** The change that takes a rewritten cell back to its original code. */
function reversed(change: ICellChange): ICellChange {
  return { ...change, original: change.rewritten, rewritten: change.original };
}

/** `promise`, or a CancelledError as soon as `signal` aborts (the work itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(new CancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      value => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      reason => {
        signal.removeEventListener('abort', onAbort);
        reject(reason);
      }
    );
  });
}

/** The parts of the model a `changed` signal can be about. */
export type ModelPart =
  'state' | 'notebook' | 'tracing' | 'serverProblem' | 'settings' | 'cells';

/**
 * Optimizer state for the sidebar: which notebook is active, the current run
 * and its result. Views listen to `changed`, which says which part changed.
 */
export class MagicPushModel {
  /** Emitted after any part of the model changes, with the part. */
  get changed(): ISignal<this, ModelPart> {
    return this._changed;
  }

  get state(): ModelState {
    return this._state;
  }

  /** How many results were started: optimizations (button, shortcut, a cell's run) and stored results shown again. */
  get runs(): number {
    return this._run;
  }

  /** The active notebook, or null when the active tab is something else. */
  get notebook(): NotebookPanel | null {
    return this._notebook;
  }

  set notebook(panel: NotebookPanel | null) {
    if (panel === this._notebook) {
      return;
    }
    const previous = this._notebook
      ? this._loaders.get(this._notebook)
      : undefined;
    previous?.statusChanged.disconnect(this._onTracingChanged, this);
    this._notebook = panel;
    if (panel) {
      this.track(panel);
      this._loaders
        .get(panel)
        ?.statusChanged.connect(this._onTracingChanged, this);
    }
    this._showResultOf(panel);
    this._changed.emit('notebook');
    this._changed.emit('tracing');
  }

  /**
   * `panel`'s last result: the one shown, or the one kept while another tab is in view;
   * null when it has none (never optimized, or optimized again right now).
   */
  resultOf(panel: NotebookPanel): DoneState | null {
    const state = this._state;
    if (state.status === 'done' && state.notebook === panel) {
      return state;
    }
    return this._parked.get(panel) ?? null;
  }

  /** Why the server cannot optimize (extension missing, z3 or pyspark not importable), or null. */
  get serverProblem(): string | null {
    return this._serverProblem;
  }

  /** Ask the server extension whether it is installed and has its engine dependencies. */
  async checkServer(): Promise<void> {
    let problem: string | null = null;
    try {
      const status = await health();
      const missing = [
        status.z3 ? null : 'z3-solver',
        status.pyspark ? null : 'pyspark'
      ].filter((name): name is string => name !== null);
      if (missing.length > 0) {
        problem = `The Jupyter server cannot import ${missing.join(' and ')}; install it where the server runs.`;
      }
    } catch (reason) {
      problem = messageOf(reason);
    }
    this._serverProblem = problem;
    this._changed.emit('serverProblem');
  }

  /** Whether the active notebook's kernel is traced; null without an active notebook. */
  get tracing(): TracingStatus | null {
    const loader = this._notebook
      ? this._loaders.get(this._notebook)
      : undefined;
    return loader ? loader.status : null;
  }

  get settings(): ISettings {
    return this._settings;
  }

  set settings(settings: ISettings) {
    this._settings = { ...settings };
    this._changed.emit('settings');
  }

  /** Whether Optimize looks at every pipeline of the notebook, not only the longest. */
  get allPipelines(): boolean {
    return this._settings.allPipelines;
  }

  set allPipelines(value: boolean) {
    this.settings = { ...this._settings, allPipelines: value };
  }

  /** Keep the kernel extension loaded in `panel`'s kernel for the panel's lifetime. */
  track(panel: NotebookPanel): KernelExtensionLoader {
    const known = this._loaders.get(panel);
    if (known) {
      return known;
    }
    const loader = new KernelExtensionLoader(panel.sessionContext);
    this._loaders.set(panel, loader);
    panel.disposed.connect(() => {
      loader.dispose();
      this._loaders.delete(panel);
      if (this._notebook === panel) {
        this.notebook = null;
      }
      this._parked.delete(panel);
      if (this._state.status === 'done' && this._state.notebook === panel) {
        this._setState({ status: 'idle' });
      }
    });
    return loader;
  }

  /** Pull the trace of the active notebook's kernel and ask the server for proved pushdowns. */
  async optimize(): Promise<void> {
    if (this._state.status === 'running') {
      return;
    }
    const panel = this._notebook;
    if (!panel) {
      this._setState({ status: 'error', message: NOT_A_NOTEBOOK, fixes: [] });
      return;
    }
    const run = ++this._run;
    const abort = new AbortController();
    this._abort = abort;
    // what this notebook's last result applied: kept (with its Undo) while its cells hold it
    const earlier =
      this._state.status === 'done' && this._state.notebook === panel
        ? this._state
        : this._parked.get(panel);
    const applied = earlier ? appliedRewrites(earlier) : [];
    this._setState({ status: 'running', stage: 'Reading trace…' });
    try {
      await panel.sessionContext.ready;
      const kernel = panel.sessionContext.session?.kernel;
      if (!kernel) {
        throw new Error(
          'This notebook has no running kernel. Start a kernel and run the pipeline first.'
        );
      }
      // a busy kernel answers only after its running cell: say so, and cancel must not
      // wait for that
      // wait, once the user's cell is done (the kernel's first idle), the trace is read
      const waiting = (_: unknown, status: string): void => {
        if (status === 'idle') {
          kernel.statusChanged.disconnect(waiting);
          this._setStage(run, 'Reading trace…');
        }
      };
      if (kernel.status === 'busy') {
        this._setStage(run, "Waiting for the kernel's running cell…");
        kernel.statusChanged.connect(waiting);
      }
      let status: { events: number };
      try {
        const loadError = await untilAborted(
          this.track(panel).ensureLoaded(),
          abort.signal
        );
        if (loadError !== null) {
          throw loadError;
        }
        status = await untilAborted(pullTraceStatus(kernel), abort.signal);
      } finally {
        kernel.statusChanged.disconnect(waiting);
      }
      if (status.events === 0) {
        throw new TracingError('nothing-traced', NOTHING_TRACED);
      }
      this._setStage(run, 'Searching and verifying…');
      const cells = notebookCells(panel);
      // Suggestions first, unmeasured, so they show while the kernel counts rows; the
      // server pulls the trace from the kernel itself.
      const result = await optimize(
        {
          notebook: { path: panel.context.path, cells },
          kernel_id: kernel.id,
          measure: false,
          time_budget: this._settings.timeBudget,
          all_pipelines: this._settings.allPipelines
        },
        abort.signal
      );
      if (run !== this._run) {
        return;
      }
      const measuring = this._settings.measure && result.suggestions.length > 0;
      const done = freshResult(
        result,
        panel,
        run,
        cells,
        'off',
        applied.filter(entry => stillInPlace(panel, entry))
      );
      if (this._notebook !== panel) {
        // another tab became active meanwhile: the result waits there, unmeasured
        this._parked.set(panel, done);
        this._setState({ status: 'idle' });
        return;
      }
      this._setState({ ...done, measuring: measuring ? 'running' : 'off' });
      if (measuring) {
        const counted = await measure(
          {
            kernel_id: kernel.id,
            suggestions: result.suggestions,
            measure_time_limit: this._settings.measureTimeLimit,
            sample_fraction: sampleFraction(this._settings)
          },
          abort.signal
        );
        this._measured(run, counted.suggestions, counted.measure_errors);
      }
    } catch (reason) {
      if (run !== this._run) {
        return;
      }
      const parked = this._parked.get(panel);
      if (parked?.run === run) {
        // its tab is not in view: the parked result keeps what became of its counting
        if (reason instanceof CancelledError) {
          this._parked.set(panel, { ...parked, measuring: 'cancelled' });
        } else {
          this._measured(run, parked.result.suggestions, [messageOf(reason)]);
        }
        return;
      }
      const state = this._state;
      if (reason instanceof CancelledError) {
        this._setState(
          state.status === 'done'
            ? { ...state, measuring: 'cancelled' }
            : { status: 'idle' }
        );
      } else if (state.status === 'done') {
        // the suggestions stand; only their row counts are missing
        this._measured(run, state.result.suggestions, [messageOf(reason)]);
      } else {
        // the server pulls the trace: its answer may be about the kernel's tracing
        const tracing =
          reason instanceof TracingError
            ? reason
            : reason instanceof ServerError
              ? serverTracingError(reason.kind, reason.message)
              : null;
        const cells = notebookCells(panel);
        // nothing traced in a notebook without PySpark is no failure: say what the tool is for
        const notPySpark =
          tracing?.kind === 'nothing-traced' && !usesPySpark(cells);
        this._setState({
          status: 'error',
          message: notPySpark ? NOT_A_PYSPARK_NOTEBOOK : messageOf(reason),
          fixes: tracing ? fixesFor(tracing.kind, cells) : [],
          notice: notPySpark
        });
      }
    } finally {
      if (this._abort === abort) {
        this._abort = null;
      }
    }
  }

  /**
   * Do what a fix button offers, in the active notebook, visibly: cells it adds are
   * ordinary cells the user can read, edit or delete. Resolves when it is done (a
   * kernel change or a run can take a while); the user optimizes again after.
   */
  async fix(fix: Fix): Promise<void> {
    const panel = this._notebook;
    if (!panel) {
      throw new Error(NOT_A_NOTEBOOK);
    }
    const before = this._state;
    if (before.status === 'error') {
      // the error is being fixed: say what goes on instead, at once
      this._setState({ status: 'running', stage: FIX_STAGE[fix] });
    }
    try {
      await this._fix(panel, fix);
    } catch (reason) {
      if (before.status === 'error') {
        this._setState({ ...before, message: messageOf(reason) });
        return;
      }
      throw reason;
    }
    const state = this._state;
    if (
      state.status === 'error' ||
      (state.status === 'running' && state.stage === FIX_STAGE[fix])
    ) {
      this._setState({ status: 'idle' });
    }
  }

  private async _fix(panel: NotebookPanel, fix: Fix): Promise<void> {
    const notebook = panel.content;
    switch (fix) {
      case 'run-all':
        await NotebookActions.runAll(notebook, panel.sessionContext);
        break;
      case 'start-spark':
      case 'install-pyspark': {
        const model = notebook.model;
        if (!model) {
          throw new Error('The notebook is not loaded');
        }
        const source = fix === 'start-spark' ? START_SPARK : INSTALL_PYSPARK;
        model.sharedModel.insertCell(0, { cell_type: 'code', source });
        notebook.activeCellIndex = 0;
        notebook.deselectAll();
        await NotebookActions.run(notebook, panel.sessionContext);
        if (fix === 'install-pyspark') {
          await this.track(panel).reload();
        }
        break;
      }
      case 'switch-kernel': {
        const name = panel.sessionContext.specsManager.specs?.default;
        if (!name) {
          throw new Error('The server names no default kernel to switch to');
        }
        await panel.sessionContext.changeKernel({ name });
        break;
      }
      case 'load-extension': {
        const error = await this.track(panel).reload();
        if (error !== null) {
          throw error;
        }
        break;
      }
    }
  }

  /**
   * How the shown result's cell at `position` is named: by the count its prompt shows now
   * ("cell [3]"), its position kept for one without a count.
   */
  cellRefAt(position: number): ICellRef {
    const state = this._state;
    const cell = state.status === 'done' ? cellOfResult(state, position) : null;
    return { position, count: promptCount(cell) };
  }

  /** Whether a cell of the shown result's notebook has a prompt showing `count`. */
  hasCount(count: number): boolean {
    return this._cellWithCount(count) !== null;
  }

  /** Scroll to the shown result's cell at `position`, select it and move focus to it. */
  revealCell(position: number): void {
    const state = this._state;
    this._reveal(
      state.status === 'done' ? cellOfResult(state, position) : null
    );
  }

  /** Scroll to the cell whose prompt shows `count`, select it and move focus to it. */
  revealCount(count: number): void {
    this._reveal(this._cellWithCount(count));
  }

  /** A cell of the active notebook ran: the prompts that name cells may have changed. */
  cellsRan(panel: NotebookPanel): void {
    if (this._state.status === 'done' && this._state.notebook === panel) {
      this._changed.emit('cells');
    }
  }

  private _cellWithCount(count: number): Cell | null {
    const state = this._state;
    if (state.status !== 'done') {
      return null;
    }
    return (
      state.notebook.content.widgets.find(w => promptCount(w) === count) ?? null
    );
  }

  private _reveal(cell: Cell | null): void {
    const state = this._state;
    if (state.status !== 'done' || !cell || cell.isDisposed) {
      return;
    }
    const notebook = state.notebook.content;
    const index = notebook.widgets.indexOf(cell);
    if (index < 0) {
      return;
    }
    notebook.mode = 'command';
    notebook.activeCellIndex = index;
    notebook.deselectAll();
    void notebook.scrollToCell(cell, 'center').then(() => notebook.activate());
  }

  /** Whether the current run can be cancelled (searching, or counting rows). */
  get cancellable(): boolean {
    const state = this._state;
    return (
      (this._abort !== null &&
        (state.status === 'running' ||
          (state.status === 'done' && state.measuring === 'running'))) ||
      this._runtimeAborts.size > 0
    );
  }

  /**
   * Stop what runs: the search (the server stops proving), row counting (shown suggestions
   * stay, uncounted) and any run-time measurement (its kernel is interrupted).
   */
  cancel(): void {
    this._abort?.abort();
    this._runtimeAborts.forEach(abort => abort.abort());
  }

  /**
   * Keep `panel`'s notebook listening for Escape in command mode: it stops what MagicPush
   * runs for the notebook (counting, timing) as Escape in the panel does. Edit mode's Escape
   * stays the editor's; nothing else is ever stopped or prevented.
   */
  cancelOnEscape(panel: NotebookPanel): void {
    panel.node.addEventListener('keydown', event => {
      if (
        event.key === 'Escape' &&
        panel.content.mode === 'command' &&
        this._notebook === panel &&
        this.cancellable
      ) {
        this.cancel();
      }
    });
  }

  private _measured(
    run: number,
    suggestions: ISuggestion[],
    errors: string[]
  ): void {
    const measured = (state: DoneState): DoneState => ({
      ...state,
      result: {
        ...state.result,
        suggestions,
        measure_errors: [...state.result.measure_errors, ...errors]
      },
      measuring: 'done'
    });
    const state = this._state;
    if (run !== this._run) {
      return;
    }
    if (state.status === 'done' && state.run === run) {
      this._setState(measured(state));
      return;
    }
    // counted while its tab was not in view: the parked result gets the counts
    for (const [panel, parked] of this._parked) {
      if (parked.run === run) {
        this._parked.set(panel, measured(parked));
        this._remember(measured(parked));
      }
    }
  }

  /**
   * Rewrite the notebook cells of suggestion `index`, each as one undoable
   * change. Refuses (throws) if any affected cell changed since the run, or if
   * another suggestion of the same pipeline was applied: each was proved
   * alone, and together they are proved only as the pipeline's joint rewrite.
   */
  apply(index: number): void {
    const state = this._done();
    const suggestion: ISuggestion | undefined = state.result.suggestions[index];
    if (!suggestion) {
      throw new Error(`There is no suggestion ${index + 1}`);
    }
    const joint = this._togetherOf(state, suggestion.pipeline);
    if (joint) {
      const others = this._pipelineIndices(state, joint.pipeline).filter(
        i => i !== index && state.applied.has(i)
      );
      if (others.length > 0) {
        throw new Error(
          `Another filter of pipeline ${joint.pipeline} is already applied. ` +
            'Undo it and use "Apply all", which was proved for the filters together.'
        );
      }
    }
    if (state.applied.has(index)) {
      throw new Error(`Suggestion ${index + 1} is already applied`);
    }
    this._rewrite(state, suggestion.cells);
    const applied = new Set(state.applied);
    applied.add(index);
    this._setState({ ...state, applied });
  }

  /**
   * Restore the cells suggestion `index` rewrote, each as one undoable change. Refuses
   * (throws, changing nothing) if any of them was edited since: the diff still shows the
   * original code, so nothing is lost, but overwriting the user's edits would be.
   */
  undo(index: number): void {
    const state = this._done();
    const suggestion: ISuggestion | undefined = state.result.suggestions[index];
    if (!suggestion || !state.applied.has(index)) {
      throw new Error(`Suggestion ${index + 1} is not applied`);
    }
    if (suggestion.pipeline && state.appliedTogether.has(suggestion.pipeline)) {
      this.undoTogether(suggestion.pipeline);
      return;
    }
    this._rewrite(state, suggestion.cells.map(reversed));
    const applied = new Set(state.applied);
    applied.delete(index);
    this._setState({ ...state, applied });
  }

  /**
   * Take out rewrite `index` of `inPlace` (applied before the last optimization), each cell
   * as one undoable change; refuses, changing nothing, once one of its cells was edited.
   */
  undoInPlace(index: number): void {
    const state = this._done();
    const entry = state.inPlace[index];
    if (!entry) {
      throw new Error(`There is no applied rewrite ${index + 1}`);
    }
    if (state.notebook.isDisposed || !state.notebook.content.model) {
      throw new Error('The notebook of this rewrite was closed');
    }
    rewriteCells(state.notebook.content.model, [...entry.undo]);
    this._setState({
      ...state,
      inPlace: state.inPlace.filter((_, i) => i !== index)
    });
  }

  /**
   * Cells of `panel` were rewritten outside the panel (`%magicpush apply N`): a shown
   * suggestion or joint rewrite whose every cell now holds its rewritten code is shown
   * applied, with its Undo, as if applied here.
   */
  appliedElsewhere(panel: NotebookPanel): void {
    const state = this._state;
    if (state.status !== 'done' || state.notebook !== panel) {
      return;
    }
    const holds = (changes: ReadonlyArray<ICellChange>): boolean =>
      changes.length > 0 &&
      changes.every(
        c =>
          cellOfResult(state, c.index)?.model.sharedModel.getSource() ===
          c.rewritten
      );
    const applied = new Set(state.applied);
    const appliedTogether = new Set(state.appliedTogether);
    for (const joint of state.result.together ?? []) {
      if (holds(joint.cells)) {
        appliedTogether.add(joint.pipeline);
        this._pipelineIndices(state, joint.pipeline).forEach(i =>
          applied.add(i)
        );
      }
    }
    state.result.suggestions.forEach((s, i) => {
      if (holds(s.cells)) {
        applied.add(i);
      }
    });
    this._setState({ ...state, applied, appliedTogether });
  }

  /** Restore the cells of a pipeline's applied joint rewrite; see `undo`. */
  undoTogether(pipeline: string): void {
    const state = this._done();
    const joint = this._togetherOf(state, pipeline);
    if (!joint || !state.appliedTogether.has(pipeline)) {
      throw new Error(
        `The filters of pipeline ${pipeline} are not applied together`
      );
    }
    this._rewrite(state, joint.cells.map(reversed));
    const applied = new Set(state.applied);
    this._pipelineIndices(state, pipeline).forEach(i => applied.delete(i));
    const appliedTogether = new Set(state.appliedTogether);
    appliedTogether.delete(pipeline);
    this._setState({ ...state, applied, appliedTogether });
  }

  /**
   * Run the result's notebook from the first of `cells` down, with the kernel's own
   * execution: after Apply the cells hold the filter, but the kernel still holds the
   * DataFrames made before. Resolves when the run ends.
   */
  async rerunFrom(cells: ICellChange[]): Promise<void> {
    const state = this._done();
    const notebook = state.notebook.content;
    if (cells.length === 0) {
      return;
    }
    notebook.activeCellIndex = Math.min(...cells.map(c => c.index));
    notebook.deselectAll();
    const ran = await NotebookActions.runAllBelow(
      notebook,
      state.notebook.sessionContext
    );
    if (!ran) {
      throw new Error(
        'A cell failed while running again: see its output in the notebook'
      );
    }
  }

  /**
   * Run suggestion `index`'s pipeline as written and as rewritten on the notebook's
   * SparkSession, a few times each, and keep the times. The notebook's cells are not
   * touched: the kernel re-runs the traced calls with the filter at the source.
   */
  async measureRunTime(index: number): Promise<void> {
    const state = this._done();
    const suggestion = state.result.suggestions[index];
    const kernel = state.notebook.sessionContext.session?.kernel;
    if (!suggestion) {
      throw new Error(`There is no suggestion ${index + 1}`);
    }
    const run = state.run;
    const set = (time: RunTime): void => {
      const now = this._state;
      if (now.status === 'done' && now.run === run) {
        const runtimes = new Map(now.runtimes);
        runtimes.set(index, time);
        this._setState({ ...now, runtimes });
      }
    };
    if (!kernel) {
      set({ status: 'error', message: 'The notebook has no running kernel' });
      return;
    }
    const abort = new AbortController();
    this._runtimeAborts.get(index)?.abort();
    this._runtimeAborts.set(index, abort);
    set({ status: 'running', started: Date.now() });
    try {
      const result = await runtime(
        { kernel_id: kernel.id, suggestion },
        abort.signal
      );
      set({ status: 'done', result });
    } catch (reason) {
      set(
        reason instanceof CancelledError
          ? { status: 'cancelled' }
          : { status: 'error', message: messageOf(reason) }
      );
    } finally {
      if (this._runtimeAborts.get(index) === abort) {
        this._runtimeAborts.delete(index);
      }
    }
  }

  /**
   * Stop suggestion `index`'s "Measure run time": the request is dropped, and the server
   * interrupts the kernel while it runs the timing, which cancels its Spark jobs.
   */
  cancelRunTime(index: number): void {
    this._runtimeAborts.get(index)?.abort();
  }

  /** Rewrite the cells of a pipeline's joint rewrite: every filter of that pipeline at once. */
  applyTogether(pipeline: string): void {
    const state = this._done();
    const joint = this._togetherOf(state, pipeline);
    if (!joint) {
      throw new Error(`There is no joint rewrite for pipeline ${pipeline}`);
    }
    const indices = this._pipelineIndices(state, pipeline);
    if (indices.some(i => state.applied.has(i))) {
      throw new Error(
        `A filter of pipeline ${pipeline} is already applied; undo it before applying all`
      );
    }
    this._rewrite(state, joint.cells);
    const applied = new Set(state.applied);
    indices.forEach(i => applied.add(i));
    const appliedTogether = new Set(state.appliedTogether);
    appliedTogether.add(pipeline);
    this._setState({ ...state, applied, appliedTogether });
  }

  /**
   * Rewrite the cells of fold `index` (a withColumn chain as withColumns calls) as
   * suggestions are rewritten: each cell one undoable change, all or none, and only while
   * every cell still holds the code that ran. A fold and a filter rewriting the same cell
   * are never both applied: the second finds the cell changed and refuses.
   */
  applyFold(index: number): void {
    const state = this._done();
    const fold = this._foldOf(state, index);
    if (state.appliedFolds.has(index)) {
      throw new Error(`Fold ${index + 1} is already applied`);
    }
    this._rewrite(state, fold.cells);
    const appliedFolds = new Set(state.appliedFolds);
    appliedFolds.add(index);
    this._setState({ ...state, appliedFolds });
  }

  /** Restore the cells fold `index` rewrote; refuses, changing nothing, over later edits (see `undo`). */
  undoFold(index: number): void {
    const state = this._done();
    const fold = this._foldOf(state, index);
    if (!state.appliedFolds.has(index)) {
      throw new Error(`Fold ${index + 1} is not applied`);
    }
    this._rewrite(state, fold.cells.map(reversed));
    const appliedFolds = new Set(state.appliedFolds);
    appliedFolds.delete(index);
    this._setState({ ...state, appliedFolds });
  }

  private _foldOf(state: DoneState, index: number): IFold {
    const fold: IFold | undefined = (state.result.folds ?? [])[index];
    if (!fold) {
      throw new Error(`There is no fold ${index + 1}`);
    }
    return fold;
  }

  private _done(): Extract<ModelState, { status: 'done' }> {
    const state = this._state;
    if (state.status !== 'done') {
      throw new Error('There is no optimization result to apply');
    }
    return state;
  }

  private _togetherOf(
    state: Extract<ModelState, { status: 'done' }>,
    pipeline: string | null | undefined
  ): ITogether | undefined {
    return (state.result.together ?? []).find(t => t.pipeline === pipeline);
  }

  private _pipelineIndices(
    state: Extract<ModelState, { status: 'done' }>,
    pipeline: string
  ): number[] {
    return state.result.suggestions
      .map((s, i) => (s.pipeline === pipeline ? i : -1))
      .filter(i => i >= 0);
  }

  /** Replace each cell's code, one undoable change per cell, after checking all are unchanged. */
  private _rewrite(
    state: Extract<ModelState, { status: 'done' }>,
    changes: ICellChange[]
  ): void {
    const model = state.notebook.content.model;
    if (state.notebook.isDisposed || !model) {
      throw new Error('The notebook of this suggestion was closed');
    }
    rewriteCells(model, changes);
  }

  private _onTracingChanged(): void {
    this._changed.emit('tracing');
  }

  private _setStage(run: number, stage: Stage): void {
    if (run === this._run) {
      this._setState({ status: 'running', stage });
    }
  }

  /**
   * Each notebook keeps its own result: a tab change parks the result shown (its Apply would
   * act on a notebook that is not in view) and shows the new tab's, or none. A run in
   * progress stays on show, with its Cancel, until it ends.
   */
  private _showResultOf(panel: NotebookPanel | null): void {
    const state = this._state;
    if (state.status === 'running') {
      return;
    }
    if (state.status === 'done') {
      if (state.notebook === panel) {
        return;
      }
      this._parked.set(state.notebook, state);
    }
    const parked = panel ? this._parked.get(panel) : undefined;
    if (panel && parked) {
      this._parked.delete(panel);
    }
    this._setState(parked ?? { status: 'idle' });
  }

  private _setState(state: ModelState): void {
    this._state = state;
    this._changed.emit('state');
    if (state.status === 'done') {
      this._remember(state);
    }
  }

  /** Where each notebook's last result is kept across page reloads (null: nowhere). */
  set stateDB(db: IStateDB | null) {
    this._stateDB = db;
  }

  /**
   * Bring back `panel`'s last result after a page reload, with the suggestions whose cells
   * still hold the code they were made for; their banners come back with it. Nothing
   * happens when the notebook has a result already or a run goes on.
   */
  async restore(panel: NotebookPanel): Promise<void> {
    const db = this._stateDB;
    if (!db) {
      return;
    }
    await panel.context.ready;
    const stored = asStored(await db.fetch(storeKey(panel.context.path)));
    const result = stored ? restorable(stored, notebookCells(panel)) : null;
    const state = this._state;
    if (
      !stored ||
      !result ||
      panel.isDisposed ||
      state.status === 'running' ||
      (state.status === 'done' && state.notebook === panel) ||
      this._parked.has(panel)
    ) {
      return;
    }
    const done = freshResult(result, panel, ++this._run, stored.cells, 'done');
    this._remembered.set(panel.context.path, result);
    if (this._notebook === panel && state.status !== 'done') {
      this._setState(done);
    } else {
      this._parked.set(panel, done);
    }
  }

  /** Keep a shown result as its notebook's last one, once per result. */
  private _remember(state: DoneState): void {
    const path = state.notebook.context.path;
    if (!this._stateDB || this._remembered.get(path) === state.result) {
      return;
    }
    this._remembered.set(path, state.result);
    const value = {
      result: state.result,
      cells: state.cellIds.map((id, i) => ({
        id,
        source: state.sources[i] ?? ''
      }))
    };
    void this._stateDB
      .save(storeKey(path), value as unknown as ReadonlyPartialJSONValue)
      .catch(() => undefined); // a result not kept only means no banners after a reload
  }

  private _state: ModelState = { status: 'idle' };
  private _notebook: NotebookPanel | null = null;
  private _settings: ISettings = { ...DEFAULT_SETTINGS };
  private _run = 0;
  private _abort: AbortController | null = null;
  private _runtimeAborts = new Map<number, AbortController>();
  private _parked = new Map<NotebookPanel, DoneState>();
  private _loaders = new Map<NotebookPanel, KernelExtensionLoader>();
  private _serverProblem: string | null = null;
  private _stateDB: IStateDB | null = null;
  private _remembered = new Map<string, IOptimizeResult>();
  private _changed = new Signal<this, ModelPart>(this);
}
