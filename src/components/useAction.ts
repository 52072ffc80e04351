import * as React from 'react';

/**
 * Runs a model action from a button, keeping its error to show next to the
 * button (the model throws readable messages, e.g. "Cell 3 changed since the
 * optimization"). Returns the error, or null, and the wrapper.
 */
export function useAction(): [string | null, (action: () => void) => void] {
  const [error, setError] = React.useState<string | null>(null);
  const run = React.useCallback((action: () => void): void => {
    try {
      action();
      setError(null);
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    }
  }, []);
  return [error, run];
}
