import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import {
  IHealth,
  IMeasureRequest,
  IMeasureResult,
  IOptimizeRequest,
  IOptimizeResult,
  IRuntimeRequest,
  IRuntimeResult
} from './contract';

const NOT_INSTALLED =
  'MagicPush Lab server extension is not installed or not enabled';

/** An error answered by the server extension, with its machine-readable kind. */
export class ServerError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly kind: string | null = null
  ) {
    super(message);
    this.name = 'ServerError';
  }
}

/** The request was cancelled by the user (its AbortSignal fired). */
export class CancelledError extends Error {
  constructor() {
    super('Cancelled');
    this.name = 'CancelledError';
  }
}

/**
 * The one request wrapper for the server extension's routes.
 *
 * A 404 without an error body means that the route is not registered; every
 * error body `{"error": ...}` becomes a thrown `ServerError` with its message.
 */
export async function requestAPI<T>(
  endpoint: string,
  init: RequestInit = {},
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<T> {
  const url = URLExt.join(settings.baseUrl, 'magicpush-lab', endpoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    if (init.signal?.aborted) {
      throw new CancelledError();
    }
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  const text = await response.text();
  let data: unknown = null;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  const errorMessage =
    data !== null &&
    typeof data === 'object' &&
    typeof (data as { error?: unknown }).error === 'string'
      ? (data as { error: string }).error
      : null;
  if (!response.ok) {
    if (errorMessage !== null) {
      const kind = (data as { kind?: unknown }).kind;
      throw new ServerError(
        errorMessage,
        response.status,
        typeof kind === 'string' ? kind : null
      );
    }
    if (response.status === 404) {
      throw new ServerError(NOT_INSTALLED, 404);
    }
    throw new ServerError(
      `MagicPush Lab server error ${response.status}: ${response.statusText}`,
      response.status
    );
  }
  if (data === null) {
    throw new ServerError(
      'MagicPush Lab server sent an invalid JSON response',
      response.status
    );
  }
  return data as T;
}

export function optimize(
  request: IOptimizeRequest,
  signal?: AbortSignal
): Promise<IOptimizeResult> {
  return requestAPI<IOptimizeResult>('optimize', {
    method: 'POST',
    body: JSON.stringify(request),
    signal
  });
}

/** Row counts for suggestions `optimize` returned unmeasured, on the notebook's kernel. */
export function measure(
  request: IMeasureRequest,
  signal?: AbortSignal
): Promise<IMeasureResult> {
  return requestAPI<IMeasureResult>('measure', {
    method: 'POST',
    body: JSON.stringify(request),
    signal
  });
}

/** Time a suggestion's pipeline, as written and as rewritten, on the notebook's kernel. */
export function runtime(
  request: IRuntimeRequest,
  signal?: AbortSignal
): Promise<IRuntimeResult> {
  return requestAPI<IRuntimeResult>('runtime', {
    method: 'POST',
    body: JSON.stringify(request),
    signal
  });
}

export function health(): Promise<IHealth> {
  return requestAPI<IHealth>('health');
}
