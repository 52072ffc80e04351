/*
 * The JSON contract of the server routes (`<base_url>/magicpush-lab/...`), generated from
 * magicpush_lab/server/contract.schema.json by scripts/contract_types.py. Do not edit: change
 * the schema and run `python scripts/contract_types.py`.
 */

/**
 * The trace, as recorded in the kernel (capture/trace.py); its fields are read by the server only,
 * when the optimization starts: a trace that does not parse is invalid_trace.
 */
export type Trace = { [key: string]: unknown };

export type SuggestionKind = 'equivalent' | 'superset';

/**
 * A predicate as IR JSON (ir/serialize.py): what the kernel builds into a Spark Column to count or
 * time it. Python UDFs and aggregates never appear in a pushed predicate, and are refused.
 */
export type Predicate = { [key: string]: unknown };

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
  /**
   * The count the cell's prompt showed at its last traced run, as in [3]: how the user names the
   * cell; null when the trace has no run of it.
   */
  execution_count?: number | null;
}

/**
 * An estimated time saving: `seconds` (null with `note` saying why there is none), from
 * `rows_removed` times `seconds_per_row`, the growth of the pipeline's time per row from the
 * source's first `small_rows` to its first `sample_rows` rows.
 */
export interface ITimeSaved {
  seconds: number | null;
  seconds_per_row?: number;
  sample_rows?: number | null;
  small_rows?: number | null;
  rows_removed?: number;
  note?: string;
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

/**
 * A suggestion as a client sends it back (to count its rows or time it): the fields optimize
 * wrote, of which the first seven are needed.
 */
export interface ISuggestionIn {
  source: string;
  predicate: string;
  kind: SuggestionKind;
  proof: IProofStep[];
  cells: ICellChange[];
  source_event: number;
  predicate_ir: Predicate;
  rows_before?: number | null;
  rows_after?: number | null;
  row_reduction?: number | null;
  estimated?: boolean;
  /** The original could raise on a row that the rewrite filters out first. */
  may_hide_errors?: boolean;
  /** Other proved predicates for the same source, none implying another. */
  alternatives?: ISuggestionIn[];
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
  /**
   * The late filter(s) the predicate stands in for, as PySpark code (pandas code when
   * late_filter_in_pandas); null when it has no PySpark form.
   */
  late_predicate?: string | null;
  /**
   * The late filter is pandas code after toPandas(): the rewritten DataFrame holds fewer rows by
   * design, and pandas keeps the same ones.
   */
  late_filter_in_pandas?: boolean;
  /**
   * An estimate of the seconds the rewrite saves per run: the rows removed times the pipeline's
   * per-row cost, timed on a sample of the source; null when not measured.
   */
  time_saved?: ITimeSaved | null;
}

/** A proved pushdown, as optimize, measure and replay answer it. */
export interface ISuggestion {
  source: string;
  predicate: string;
  kind: SuggestionKind;
  proof: IProofStep[];
  cells: ICellChange[];
  source_event: number;
  predicate_ir: Predicate;
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
  /**
   * The late filter(s) the predicate stands in for, as PySpark code (pandas code when
   * late_filter_in_pandas); null when it has no PySpark form.
   */
  late_predicate?: string | null;
  /**
   * The late filter is pandas code after toPandas(): the rewritten DataFrame holds fewer rows by
   * design, and pandas keeps the same ones.
   */
  late_filter_in_pandas?: boolean;
  /**
   * An estimate of the seconds the rewrite saves per run: the rows removed times the pipeline's
   * per-row cost, timed on a sample of the source; null when not measured.
   */
  time_saved?: ITimeSaved | null;
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
  /** The trace event of the step that stopped the filter, as in the pipeline graph. */
  event?: number | null;
  /**
   * The result's note about that step (its code, cell and every reason): shown once, with the
   * refusal.
   */
  note?: string | null;
}

/** All suggestions of one pipeline as the single rewrite the engine proved jointly. */
export interface ITogether {
  pipeline: string;
  kind: SuggestionKind;
  cells: ICellChange[];
  suggestions: number;
  /** Its filters counted to remove no rows: then it is not applied in bulk. */
  no_benefit?: string[];
}

/** One cell of the notebook, in notebook order; `id` matches each traced execution to its cell. */
export interface INotebookCellPayload {
  source: string;
  cell_type: string;
  id: string | null;
}

/**
 * The notebook the trace ran in: its path (for the answer) and its cells, whose code the rewrites
 * start from.
 */
export interface INotebook {
  path?: string | null;
  cells?: INotebookCellPayload[];
}

/** POST optimize: prove pushdowns for a trace, and count their rows on the notebook's kernel. */
export interface IOptimizeRequest {
  /** Left out: the server pulls the trace from the kernel `kernel_id` names. */
  trace?: Trace;
  notebook?: INotebook | null;
  kernel_id?: string | null;
  /** Count rows on the kernel (default true). */
  measure?: boolean;
  /** Seconds of search and proof, counted from when the optimization starts (default 10). */
  time_budget?: number | null;
  /** Seconds of exact counting before the counts are estimated on a sample. */
  measure_time_limit?: number | null;
  /** Every pipeline of the notebook, not only the longest. */
  all_pipelines?: boolean;
}

/** What optimize and replay answer, and what `magicpush optimize --json` prints. */
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
  /** Why a suggestion has no row counts; never measurements. */
  measure_errors: string[];
  /** Filters already in place that a pushed predicate met: not offered again. */
  already_applied?: IAlreadyApplied[];
  /**
   * Conjuncts of a late filter that stay in it while others moved, and the step that stopped each.
   */
  left_behind?: ILeftBehind[];
  /** The trace's last cell execution raised: the cells after it have not run. */
  failed_cell?: IFailedCell | null;
  /**
   * Chains of withColumn calls long enough to near Spark's depth limits, written as withColumns
   * calls with the same columns.
   */
  folds?: IFold[];
}

/**
 * A chain of withColumn calls folded into withColumns calls: the same columns, values and errors,
 * a plan nested less deep.
 */
export interface IFold {
  /** The variable holding the chain's last DataFrame. */
  pipeline: string | null;
  /** withColumn calls in the chain: the depth they nest the plan. */
  calls: number;
  /** How many of them the rewrite folds. */
  folded: number;
  /** The withColumns calls written in their place. */
  with_columns: number;
  /** The chain's depth once folded. */
  depth_after: number;
  first_event: number;
  last_event: number;
  /** Why the fold is offered, in plain words. */
  reason: string;
  cells: ICellChange[];
}

export interface IFailedCell {
  execution_count: number;
  cell_id: string | null;
  /** The error's one line: its root cause, credentials masked. */
  error: string;
}

/** A conjunct that stays in its late filter: walked alone, it stopped at this step. */
export interface ILeftBehind {
  pipeline: string;
  /** The conjunct, as PySpark code. */
  conjunct: string;
  operator: string;
  /** The step's trace event. */
  event: number | null;
  /** The step's code, cell and line, when traced. */
  step: string | null;
  reason: string;
  note: string;
}

/** A filter of the pipeline's own that keeps only rows a pushed predicate keeps. */
export interface IAlreadyApplied {
  pipeline: string;
  /** The filter's trace event. */
  event: number | null;
  /** The predicate that met it, as PySpark code. */
  predicate: string;
  /** The filter's code, cell and line, when traced. */
  step: string | null;
  note: string;
}

/**
 * POST measure: count rows, on the notebook's kernel, for suggestions optimize returned
 * unmeasured.
 */
export interface IMeasureRequest {
  kernel_id: string;
  suggestions: ISuggestionIn[];
  /** Seconds of exact counting before the counts are estimated on a sample. */
  measure_time_limit?: number | null;
  /** The share of rows (0, 1] the estimate counts. */
  sample_fraction?: number | null;
}

export interface IMeasureResult {
  suggestions: ISuggestion[];
  measure_errors: string[];
}

/** POST runtime: time one suggestion's pipeline, original and rewritten, on the live session. */
export interface IRuntimeRequest {
  kernel_id: string;
  suggestion: ISuggestionIn;
  /** Timed runs of each side (default 3). */
  runs?: number | null;
  /** Seconds all runs share (default 60). */
  time_limit?: number | null;
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

/**
 * POST replay: replay a saved notebook under the server's root in a fresh kernel, optimize and
 * measure it.
 */
export interface IReplayRequest {
  path: string;
  /** Seconds one cell may run (default 600). */
  timeout?: number | null;
  /** Seconds the whole replay may take, cells, optimization and counts together (default 1800). */
  deadline?: number | null;
  measure?: boolean;
  time_budget?: number | null;
}

export interface IHealth {
  version: string;
  z3: boolean;
  pyspark: boolean;
}

/**
 * Every error answer: a message for people and a kind for programs (docs/architecture.md lists
 * them); a failed replay adds the cell.
 */
export interface IError {
  error: string;
  kind: string;
  cell_index?: number;
  ename?: string;
  evalue?: string;
  where?: string | null;
}
