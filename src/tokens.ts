/**
 * Shared identifiers, the kernel protocol's constants and the JSON contract's types.
 */

/** Plugin id; its settings schema is `schema/plugin.json`. */
export const PLUGIN_ID = 'magicpush-lab:plugin';

/** Commands contributed by the extension. */
export namespace CommandIDs {
  export const optimize = 'magicpush-lab:optimize';
  export const openSidebar = 'magicpush-lab:open-sidebar';
  /** Args: `{kind: 'one', index}` or `{kind: 'together', pipeline}` of the shown result. */
  export const openSideBySide = 'magicpush-lab:open-side-by-side';
}

/*
 * The kernel protocol's constants, copies of magicpush_lab/protocol.py's
 * (tests/test_contract.py keeps them equal).
 */

/**
 * MIME type of `magicpush_lab.kernel.trace_status()`: whether the kernel traces and how
 * many events it holds. The trace itself (`trace_bundle()`) goes from the kernel to
 * the server directly, never through the browser.
 */
export const TRACE_STATUS_MIME = 'application/vnd.magicpush.trace-status+json';

/**
 * The trace status accessor as a user expression. `__import__` returns the
 * top-level package with `kernel` imported, so it works whether or not the user
 * namespace has a `magicpush_lab` name.
 */
export const TRACE_STATUS_EXPRESSION =
  '__import__("magicpush_lab.kernel").kernel.trace_status()';

/** What `trace_status()` answers. */
export interface ITraceStatus {
  tracing: boolean;
  events: number;
  cells: number;
}

/** MIME type of `%magicpush apply N`: cells for the notebook to rewrite (src/applyRenderer.ts). */
export const APPLY_MIME = 'application/vnd.magicpush.apply+json';

/*
 * The JSON contract of the routes: types generated from the server's schema
 * (magicpush_lab/server/contract.schema.json) into src/contract.ts.
 */
export type {
  ICellChange,
  IError,
  IFold,
  IHealth,
  IMeasureRequest,
  IMeasureResult,
  INotebook,
  INotebookCellPayload,
  IOptimizeRequest,
  IOptimizeResult,
  IPipelineGraph,
  IPipelineNode,
  IProofStep,
  IRefusal,
  IReplayRequest,
  IRuntimeRequest,
  IRuntimeResult,
  IScanConjunct,
  IScanFilters,
  ISuggestion,
  ISuggestionIn,
  ITogether,
  Predicate,
  SuggestionKind,
  Trace
} from './contract';

/** User settings (see schema/plugin.json). */
export interface ISettings {
  measure: boolean;
  timeBudget: number;
  allPipelines: boolean;
  /** Banners under the cell of a late filter, after the cell runs. */
  inlineSuggestions: boolean;
  /** Seconds of exact row counting before the figures are estimated on a sample. */
  measureTimeLimit: number;
  /** The sample, in percent of a source's rows, that an estimate counts. */
  measureSamplePercent: number;
}

export const DEFAULT_SETTINGS: ISettings = {
  measure: true,
  timeBudget: 10,
  allPipelines: false,
  inlineSuggestions: true,
  measureTimeLimit: 60,
  measureSamplePercent: 1
};
