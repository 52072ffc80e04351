import { ISessionContext } from '@jupyterlab/apputils';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { kernelError, NOT_A_TRACE, NOT_TRACING, TracingError } from './fixes';
import {
  ITraceStatus,
  TRACE_STATUS_EXPRESSION,
  TRACE_STATUS_MIME
} from './tokens';

const LOAD_CODE = '%load_ext magicpush_lab';

/**
 * Whether the kernel traces, and how much it holds, without output or history;
 * the trace itself goes from the kernel to the server, which pulls it when asked
 * to optimize. Throws a TracingError whose kind says what went wrong.
 */
export async function pullTraceStatus(
  kernel: Kernel.IKernelConnection
): Promise<ITraceStatus> {
  const future = kernel.requestExecute({
    code: '',
    silent: true,
    store_history: false,
    user_expressions: { status: TRACE_STATUS_EXPRESSION }
  });
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  const content = reply.content;
  if (content.status !== 'ok') {
    if (content.status === 'error') {
      throw kernelError(content.ename, content.evalue);
    }
    throw new TracingError(
      'kernel-error',
      'The kernel aborted the trace request'
    );
  }
  const result = content.user_expressions['status'] as
    | {
        status: string;
        data?: { [mime: string]: unknown };
        ename?: string;
        evalue?: string;
      }
    | undefined;
  if (!result) {
    throw new TracingError('not-a-trace', 'The kernel sent no trace');
  }
  if (result.status !== 'ok') {
    throw kernelError(result.ename ?? 'Error', result.evalue ?? '');
  }
  const status = result.data?.[TRACE_STATUS_MIME];
  if (status === null || typeof status !== 'object' || Array.isArray(status)) {
    throw new TracingError('not-a-trace', NOT_A_TRACE);
  }
  if ((status as ITraceStatus).tracing === false) {
    throw new TracingError('tracing-off', NOT_TRACING);
  }
  return status as ITraceStatus;
}

/** Load the kernel extension silently; resolves with why it failed, or null. */
export async function loadKernelExtension(
  kernel: Kernel.IKernelConnection
): Promise<TracingError | null> {
  const future = kernel.requestExecute({
    code: LOAD_CODE,
    silent: true,
    store_history: false
  });
  const reply = (await future.done) as KernelMessage.IExecuteReplyMsg;
  const content = reply.content;
  if (content.status === 'error') {
    return kernelError(content.ename, content.evalue);
  }
  return content.status === 'ok'
    ? null
    : new TracingError(
        'kernel-error',
        'loading the kernel extension was aborted'
      );
}

const RESET_STATUSES: ReadonlySet<Kernel.Status> = new Set<Kernel.Status>([
  'starting',
  'restarting',
  'autorestarting',
  'dead'
]);

/** How long to wait for the kernel to answer `%load_ext` before trying again. */
const LOAD_TIMEOUT_MS = 30_000;

/** Whether the tracer is loaded in a notebook's current kernel. */
export type TracingStatus =
  | { status: 'waiting' }
  | { status: 'loading' }
  | { status: 'on' }
  | { status: 'failed'; error: TracingError };

function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  message: string
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    promise.then(
      value => {
        clearTimeout(timer);
        resolve(value);
      },
      reason => {
        clearTimeout(timer);
        reject(reason);
      }
    );
  });
}

/**
 * Keeps the tracer loaded in a notebook's kernel: loads it when a Python
 * kernel first reports idle (a kernel may drop requests sent while it is
 * still starting), after a restart and after a kernel change.
 */
export class KernelExtensionLoader implements IDisposable {
  constructor(private readonly _session: ISessionContext) {
    _session.kernelChanged.connect(this._reset, this);
    _session.statusChanged.connect(this._onStatusChanged, this);
    if (_session.session?.kernel?.status === 'idle') {
      void this._maybeLoad();
    }
  }

  get status(): TracingStatus {
    return this._status;
  }

  /** Emitted whenever `status` changes. */
  get statusChanged(): ISignal<this, TracingStatus> {
    return this._statusChanged;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Load the extension into the current kernel if that has not happened yet;
   * resolves with null once it is loaded, or with the reason it is not.
   */
  async ensureLoaded(): Promise<TracingError | null> {
    await this._maybeLoad();
    const status = this._status;
    if (status.status === 'on') {
      return null;
    }
    return status.status === 'failed'
      ? status.error
      : new TracingError('kernel-error', 'the kernel is not ready');
  }

  /** Load the extension again (after `%unload_ext`, or once the kernel can import it). */
  async reload(): Promise<TracingError | null> {
    this._reset();
    return this.ensureLoaded();
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    Signal.clearData(this);
  }

  private _reset(): void {
    this._loadedKernel = null;
    this._loading = null;
    this._setStatus({ status: 'waiting' });
  }

  private _onStatusChanged(_: ISessionContext, status: Kernel.Status): void {
    if (RESET_STATUSES.has(status)) {
      this._reset();
    } else if (status === 'idle') {
      void this._maybeLoad();
    }
  }

  private _maybeLoad(): Promise<void> {
    const kernel = this._session.session?.kernel;
    if (!kernel || this._isDisposed) {
      return Promise.resolve();
    }
    if (this._loadedKernel === kernel.id && this._loading) {
      return this._loading;
    }
    this._loadedKernel = kernel.id;
    this._loading = this._load(kernel);
    return this._loading;
  }

  private async _load(kernel: Kernel.IKernelConnection): Promise<void> {
    this._setStatus({ status: 'loading' });
    let error: TracingError | null;
    try {
      const info = await kernel.info;
      if (info.language_info.name !== 'python') {
        error = new TracingError(
          'not-python',
          `the ${info.language_info.name} kernel is not a Python kernel`
        );
      } else {
        error = await withTimeout(
          loadKernelExtension(kernel),
          LOAD_TIMEOUT_MS,
          'the kernel did not answer %load_ext magicpush_lab'
        );
      }
    } catch (reason) {
      error =
        reason instanceof TracingError
          ? reason
          : new TracingError(
              'kernel-error',
              reason instanceof Error ? reason.message : String(reason)
            );
      // let the next idle status try again
      this._loadedKernel = null;
      this._loading = null;
    }
    if (this._isDisposed || this._session.session?.kernel !== kernel) {
      return;
    }
    if (error !== null) {
      console.warn(`MagicPush Lab: ${error.message}`);
      this._setStatus({ status: 'failed', error });
    } else {
      this._setStatus({ status: 'on' });
    }
  }

  private _setStatus(status: TracingStatus): void {
    this._status = status;
    this._statusChanged.emit(status);
  }

  private _isDisposed = false;
  private _loadedKernel: string | null = null;
  private _loading: Promise<void> | null = null;
  private _status: TracingStatus = { status: 'waiting' };
  private _statusChanged = new Signal<this, TracingStatus>(this);
}
