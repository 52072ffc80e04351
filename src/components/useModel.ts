import * as React from 'react';

import { MagicPushModel } from '../model';

/**
 * What `read` takes from the model, kept up to date: the component renders again
 * whenever the model changes and `read` gives a different value. `read` should
 * depend on the model only.
 */
export function useModel<T>(
  model: MagicPushModel,
  read: (model: MagicPushModel) => T
): T {
  const [value, setValue] = React.useState(() => read(model));
  const reader = React.useRef(read);
  reader.current = read;
  React.useEffect(() => {
    const update = (): void => setValue(() => reader.current(model));
    model.changed.connect(update);
    update(); // the model may have changed between the first render and now
    return () => {
      model.changed.disconnect(update);
    };
  }, [model]);
  return value;
}
