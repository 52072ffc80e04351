import * as React from 'react';

import { RunTime as RunTimeState } from '../model';
import { IRuntimeResult } from '../tokens';

/** Two significant digits below a second, so that 0.131 s and 0.118 s do not both read 0.12 s. */
function seconds(s: number | null): string {
  if (s === null) {
    return '–';
  }
  return `${s < 1 ? s.toPrecision(2) : s.toFixed(2)} s`;
}

/** "(1.8× faster)"; within 5% either way, the machine's noise, "(about the same)". */
function comparison(speedup: number): string {
  if (Math.abs(speedup - 1) < 0.05) {
    return ' (about the same)';
  }
  return speedup > 1
    ? ` (${speedup.toFixed(1)}× faster)`
    : ` (${(1 / speedup).toFixed(1)}× slower)`;
}

/** The server's note as a sentence: "outputs equal as bags (15 rows)" -> "Outputs equal as bags (15 rows)." */
function sentence(note: string): string {
  return note ? `${note[0].toUpperCase()}${note.slice(1)}.` : '';
}

/** "original 1.65 s → rewritten 0.91 s (1.8× faster)" with a bar each. */
function Times(props: { result: IRuntimeResult }): JSX.Element {
  const { median_original, median_rewritten, speedup, outputs_equal } =
    props.result;
  const longest = Math.max(median_original ?? 0, median_rewritten ?? 0);
  const width = (s: number | null): string =>
    longest > 0 && s !== null ? `${(100 * s) / longest}%` : '0%';
  const runs = props.result.original_seconds.length;
  return (
    <div className="jp-MagicPush-runtime">
      <p>
        Run time, median of {runs} {runs === 1 ? 'run' : 'runs'}:{' '}
        {seconds(median_original)} → {seconds(median_rewritten)}
        {speedup !== null && comparison(speedup)}
      </p>
      {(['original', 'rewritten'] as const).map(side => {
        const value = side === 'original' ? median_original : median_rewritten;
        return (
          <div
            key={side}
            className="jp-MagicPush-runtimeRow"
            role="img"
            aria-label={`${side}: ${seconds(value)}`}
          >
            <span>{side}</span>
            <div className="jp-MagicPush-bar">
              <div
                className={`jp-MagicPush-barKept jp-MagicPush-runtime-${side}`}
                style={{ width: width(value) }}
              />
            </div>
          </div>
        );
      })}
      <p className="jp-MagicPush-muted">
        {/* how the outputs were compared and what that gave, or why they were not */}
        {sentence(props.result.note)}
        {outputs_equal === false && ' Please report this pipeline.'}
      </p>
    </div>
  );
}

/** Whole seconds since `started`, ticking once a second while shown. */
function useElapsed(started: number | null): number {
  const [now, setNow] = React.useState(Date.now());
  React.useEffect(() => {
    if (started === null) {
      return;
    }
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [started]);
  return started === null ? 0 : Math.max(0, Math.floor((now - started) / 1000));
}

/** The "Measure run time" action of a suggestion, its progress (with Cancel) and what it found. */
export function RunTime(props: {
  time: RunTimeState | undefined;
  onMeasure: () => void;
  onCancel: () => void;
  source: string;
}): JSX.Element {
  const { time, onMeasure, onCancel } = props;
  const running = time?.status === 'running';
  const elapsed = useElapsed(time?.status === 'running' ? time.started : null);
  const measureButton = React.useRef<HTMLButtonElement>(null);
  const cancelButton = React.useRef<HTMLButtonElement>(null);
  const wasRunning = React.useRef(running);
  React.useEffect(() => {
    // keyboard users keep their place: Measure is disabled while timing, so focus moves to
    // its Cancel, and back to Measure when the timing ends (the focus is never dropped);
    // only when the timing starts or ends, never on a first render
    if (wasRunning.current === running) {
      return;
    }
    wasRunning.current = running;
    const active = document.activeElement;
    const lost =
      active === null || active === document.body || !active.isConnected;
    if (running && (lost || active === measureButton.current)) {
      cancelButton.current?.focus();
    } else if (!running && lost) {
      measureButton.current?.focus();
    }
  }, [running]);
  return (
    <>
      <button
        ref={measureButton}
        className="jp-Button jp-mod-styled jp-MagicPush-runtimeButton"
        disabled={running}
        onClick={onMeasure}
        aria-label={`Measure run time: run the pipeline as written and with ${props.source} filtered at the source, on the notebook's kernel`}
      >
        {running ? 'Timing…' : 'Measure run time'}
      </button>
      {time?.status === 'running' && (
        <div className="jp-MagicPush-runtimeProgress">
          <p className="jp-MagicPush-muted" role="status">
            Running the pipeline as written and rewritten on the notebook's
            kernel… {elapsed > 0 && `${elapsed} s`}
          </p>
          <button
            ref={cancelButton}
            className="jp-Button jp-mod-styled jp-mod-reject jp-MagicPush-runtimeCancel"
            onClick={onCancel}
            aria-label="Cancel timing: interrupt the kernel and stop its Spark jobs"
          >
            Cancel
          </button>
        </div>
      )}
      {time?.status === 'cancelled' && (
        <p className="jp-MagicPush-muted" role="status">
          Timing was cancelled: the kernel was interrupted and its Spark jobs
          stopped.
        </p>
      )}
      {time?.status === 'done' && <Times result={time.result} />}
      {time?.status === 'error' && (
        <p className="jp-MagicPush-error" role="alert">
          {time.message}
        </p>
      )}
    </>
  );
}
