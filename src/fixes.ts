/**
 * What can keep the notebook's kernel from giving a trace, as kinds of error, and
 * the one-click fixes for each kind. Pure: no kernel or JupyterLab needed.
 */

import { INotebookCellPayload } from './tokens';

/** Why a trace could not be had from the kernel. */
export type TracingErrorKind =
  /** The kernel cannot import magicpush_lab: it runs in another environment. */
  | 'not-installed-in-kernel'
  /** The kernel cannot import PySpark. */
  | 'no-pyspark'
  /** The kernel answered, but its tracer is unloaded (or was never loaded). */
  | 'tracing-off'
  /** Tracing is on, but no DataFrame was recorded since it started. */
  | 'nothing-traced'
  /** The kernel answered with something that is not a MagicPush trace. */
  | 'not-a-trace'
  /** The notebook's kernel runs another language. */
  | 'not-python'
  /** Any other error the kernel raised, or a request it did not answer. */
  | 'kernel-error';

export const NOT_INSTALLED_IN_KERNEL =
  "magicpush_lab is not installed in this kernel's environment";

export const NO_PYSPARK_IN_KERNEL =
  "PySpark is not installed in this kernel's environment";

export const NOT_TRACING =
  'Tracing is off in this kernel (the extension was unloaded, or never loaded)';

export const NOTHING_TRACED =
  'No PySpark DataFrame has been recorded in this kernel since tracing started. ' +
  "Run the notebook's cells, then optimize again.";

export const NOT_A_TRACE =
  'The kernel did not return a MagicPush trace: is the kernel extension loaded (%load_ext magicpush_lab)?';

/** A failure to trace, with its kind: the kind, not the message, chooses the fixes. */
export class TracingError extends Error {
  constructor(
    readonly kind: TracingErrorKind,
    message: string
  ) {
    super(message);
    this.name = 'TracingError';
  }
}

/** The error for an `ename`/`evalue` pair from the kernel, with a message for the user. */
export function kernelError(ename: string, evalue: string): TracingError {
  if (ename === 'ModuleNotFoundError' || ename === 'ImportError') {
    if (evalue.includes('magicpush_lab')) {
      return new TracingError(
        'not-installed-in-kernel',
        NOT_INSTALLED_IN_KERNEL
      );
    }
    if (evalue.includes("'pyspark")) {
      return new TracingError('no-pyspark', NO_PYSPARK_IN_KERNEL);
    }
  }
  return new TracingError(
    'kernel-error',
    evalue ? `${ename}: ${evalue}` : ename
  );
}

/**
 * The tracing error behind a server answer about the kernel's trace (the server
 * pulls it from the kernel), or null for any other error.
 */
export function serverTracingError(
  kind: string | null,
  message: string
): TracingError | null {
  const kinds: { [server: string]: TracingErrorKind } = {
    tracing_off: 'tracing-off',
    not_installed_in_kernel: 'not-installed-in-kernel',
    no_pyspark: 'no-pyspark'
  };
  const mapped = kind !== null ? kinds[kind] : undefined;
  return mapped ? new TracingError(mapped, message) : null;
}

/**
 * What one click can do about a problem: run the notebook, start Spark in it,
 * install PySpark into the kernel, switch to the server's own Python kernel, or
 * load the kernel extension again.
 */
export type Fix =
  | 'run-all'
  | 'start-spark'
  | 'install-pyspark'
  | 'switch-kernel'
  | 'load-extension';

/** Said, as a notice, of a notebook none of whose code mentions PySpark or Spark. */
export const NOT_A_PYSPARK_NOTEBOOK =
  'This notebook does not use PySpark: MagicPush moves filters in PySpark pipelines. ' +
  'If it should, insert a cell that starts Spark.';

/** Whether any code cell mentions PySpark or a Spark session (a pandas-only notebook does not). */
export function usesPySpark(
  cells: ReadonlyArray<INotebookCellPayload>
): boolean {
  return cells.some(
    c =>
      c.cell_type === 'code' &&
      /\bpyspark\b|SparkSession|\bspark\b|%%?sql\b/.test(c.source)
  );
}

/** Whether a code cell starts or uses a SparkSession. */
function mentionsSpark(cells: ReadonlyArray<INotebookCellPayload>): boolean {
  return cells.some(
    c => c.cell_type === 'code' && /SparkSession|\bspark\./.test(c.source)
  );
}

/**
 * The fixes for a tracing failure of `kind`. Only 'nothing-traced' looks at the
 * notebook's `cells`: it runs them, after starting Spark if no cell does.
 */
export function fixesFor(
  kind: TracingErrorKind,
  cells: ReadonlyArray<INotebookCellPayload> = []
): Fix[] {
  switch (kind) {
    case 'not-installed-in-kernel':
      return ['switch-kernel'];
    case 'no-pyspark':
      return ['install-pyspark'];
    case 'tracing-off':
      return ['load-extension'];
    case 'nothing-traced':
      return mentionsSpark(cells) ? ['run-all'] : ['start-spark', 'run-all'];
    case 'not-a-trace':
    case 'not-python':
    case 'kernel-error':
      return [];
  }
}
