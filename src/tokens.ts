/**
 * Shared identifiers and the JSON contract of the `/magicpush-lab/optimize` route.
 */

/** Plugin id; its settings schema is `schema/plugin.json`. */
export const PLUGIN_ID = 'magicpush-lab:plugin';

/** Commands contributed by the extension. */
export namespace CommandIDs {
  export const optimize = 'magicpush-lab:optimize';
  export const openSidebar = 'magicpush-lab:open-sidebar';
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

/** The trace, as recorded in the kernel; its fields are read by the server only. */
export type Trace = { [key: string]: unknown };

export type SuggestionKind = 'equivalent' | 'superset';

/** One operator the predicate was pushed through, and how the step was proved. */
export interface IProofStep {
  operator: string;
  category: string;
  base_case_rows: number;
  kind: SuggestionKind;
}

/** A notebook cell to rewrite; `index` counts every cell, markdown included. */
export interface ICellChange {
  index: number;
  original: string;
  rewritten: string;
}

export interface ISuggestion {
  source: string;
  predicate: string;
  kind: SuggestionKind;
  proof: IProofStep[];
  cells: ICellChange[];
  source_event: number;
  predicate_ir: { [key: string]: unknown };
  rows_before: number | null;
  rows_after: number | null;
  row_reduction: number | null;
  estimated: boolean;
  /** The original could raise on a row that the rewrite filters out first. */
  may_hide_errors?: boolean;
  /** Other proved predicates for the same source, none implying another. */
  alternatives?: ISuggestion[];
  /** How the predicate was chosen among the alternatives on live data, once measured. */
  ranked?: string | null;
  /** Whether the predicate reaches the source's file scan; null when not measured. */
  scan_filters?: IScanFilters | null;
  /** The pipeline it is for: the variable holding the pipeline's last DataFrame. */
  pipeline?: string | null;
  /** The trace event of the late filter the predicate comes from. */
  late_filter_event?: number | null;
  /** Notebook position of the cell holding the late filter; null when its code changed. */
  late_filter_cell?: number | null;
  /** The trace event of the pipeline's last DataFrame. */
  sink_event?: number | null;
}

/** One traced call of a pipeline (magicpush_lab/pipeline_graph.py). */
export interface IPipelineNode {
  id: number;
  op: string;
  label: string;
  inputs: number[];
  cell: number | null;
  /** The engine's operator for the call, or why it is a barrier. */
  what: string;
}

export interface IPipelineGraph {
  name: string;
  sink: number;
  nodes: IPipelineNode[];
}

/** Why a filter stopped at an operator; for the naive candidate, the rows that refute it. */
export interface IRefusal {
  pipeline: string;
  operator: string;
  reason: string;
  candidate: string;
  counterexample: { [input: string]: { [column: string]: unknown }[] };
}

/** All suggestions of one pipeline as the single rewrite the engine proved jointly. */
export interface ITogether {
  pipeline: string;
  kind: SuggestionKind;
  cells: ICellChange[];
  suggestions: number;
}

/** One conjunct of the pushed predicate, and whether Spark hands it to the scan. */
export interface IScanConjunct {
  predicate: string;
  reaches_scan: boolean;
}

/** What the source's file scan gets of the predicate (Spark's PushedFilters). */
export interface IScanFilters {
  /** The scan's file format ("Parquet"), or null when the source is not a file scan. */
  scan: string | null;
  pushed: string[];
  partition_filters: string[];
  conjuncts: IScanConjunct[];
  all_pushed: boolean;
  note?: string;
}

export interface INotebookCellPayload {
  source: string;
  cell_type: string;
  id: string | null;
}

export interface IOptimizeRequest {
  /** Left out: the server pulls the trace from the kernel `kernel_id` names. */
  trace?: Trace;
  notebook: { path: string | null; cells: INotebookCellPayload[] };
  kernel_id: string | null;
  measure: boolean;
  time_budget?: number;
  /** Every pipeline of the notebook, not only the longest. */
  all_pipelines?: boolean;
}

export interface IOptimizeResult {
  notebook: string | null;
  suggestions: ISuggestion[];
  /** Per pipeline with several suggestions: all of them as one proved rewrite. */
  together?: ITogether[];
  /** What was not pushed further, and why. */
  refusals?: IRefusal[];
  /** Each optimized pipeline's calls, as a graph. */
  pipelines?: IPipelineGraph[];
  optimizer_seconds: number;
  notes: string[];
  measure_errors: string[];
}

export interface IMeasureRequest {
  kernel_id: string;
  suggestions: ISuggestion[];
  /** Seconds of exact counting before the counts are estimated on a sample. */
  measure_time_limit?: number;
  /** The share of rows (0, 1] the estimate counts. */
  sample_fraction?: number;
}

export interface IMeasureResult {
  suggestions: ISuggestion[];
  measure_errors: string[];
}

/** `POST runtime`: time one suggestion's pipeline, original and rewritten, on the live session. */
export interface IRuntimeRequest {
  kernel_id: string;
  suggestion: ISuggestion;
  runs?: number;
  time_limit?: number;
}

export interface IRuntimeResult {
  original_seconds: number[];
  rewritten_seconds: number[];
  median_original: number | null;
  median_rewritten: number | null;
  /** median_original / median_rewritten; null unless both were timed. */
  speedup: number | null;
  /** Whether both outputs are equal as bags; null when they were not compared. */
  outputs_equal: boolean | null;
  note: string;
}

export interface IHealth {
  version: string;
  z3: boolean;
  pyspark: boolean;
}

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
