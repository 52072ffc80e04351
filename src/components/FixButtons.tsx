import * as React from 'react';

import { Fix } from '../fixes';
import { useAction } from './useAction';

/** What each fix's button says, and its accessible name (what it will do). */
const FIX_TEXT: { [fix in Fix]: { label: string; aria: string } } = {
  'run-all': {
    label: 'Run all cells',
    aria: 'Run all cells of the notebook, so that the kernel records its pipeline'
  },
  'start-spark': {
    label: 'Insert a cell that starts Spark',
    aria: 'Insert a cell at the top that starts a local SparkSession, and run it'
  },
  'install-pyspark': {
    label: 'Install PySpark in this kernel',
    aria: "Insert a cell at the top that installs PySpark into the kernel's environment with pip, and run it"
  },
  'switch-kernel': {
    label: "Use the server's Python kernel",
    aria: 'Switch this notebook to the default Python kernel of the Jupyter server, where MagicPush Lab is installed'
  },
  'load-extension': {
    label: 'Turn tracing on',
    aria: 'Load the MagicPush kernel extension into this kernel again'
  }
};

/** One button per fix; a fix that fails says why next to them. */
export function FixButtons(props: {
  fixes: Fix[];
  onFix: (fix: Fix) => Promise<void>;
}): JSX.Element | null {
  const [error, act] = useAction();
  const [busy, setBusy] = React.useState<Fix | null>(null);
  if (props.fixes.length === 0) {
    return null;
  }
  const run = (fix: Fix): void => {
    setBusy(fix);
    props
      .onFix(fix)
      .then(
        () => act(() => undefined),
        reason =>
          act(() => {
            throw reason;
          })
      )
      .finally(() => setBusy(null));
  };
  return (
    <div className="jp-MagicPush-fixes">
      {props.fixes.map(fix => (
        <button
          key={fix}
          className="jp-Button jp-mod-styled jp-MagicPush-fix"
          disabled={busy !== null}
          onClick={() => run(fix)}
          aria-label={FIX_TEXT[fix].aria}
        >
          {busy === fix ? `${FIX_TEXT[fix].label}…` : FIX_TEXT[fix].label}
        </button>
      ))}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
