import * as React from 'react';

import { IDiffLine, lineDiff } from '../diff';
import { ICellChange } from '../tokens';
import { CellLinks, useCellsText } from './CellLink';

/** Puts `code`, highlighted as Python in the editor theme's colours, into `el`. */
export type Highlighter = (code: string, el: HTMLElement) => Promise<void>;

const SIGN_LABEL = { ' ': 'unchanged', '-': 'removed', '+': 'added' };

/**
 * `text` as code, highlighted once the highlighter has run; until then, or if it fails, the
 * plain text.
 */
export function HighlightedCode(props: {
  text: string;
  highlight: Highlighter | null;
}): JSX.Element {
  const { text, highlight } = props;
  const code = React.useRef<HTMLElement>(null);
  React.useEffect(() => {
    if (!highlight) {
      return;
    }
    // The highlighter appends to the element it is given: highlight into a detached one and
    // swap its children in, so the plain text rendered first is replaced, not repeated.
    let current = true;
    const target = document.createElement('code');
    highlight(text, target)
      .then(() => {
        if (current && code.current) {
          code.current.replaceChildren(...Array.from(target.childNodes));
        }
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [text, highlight]);
  // keyed by its text: new text gets a fresh element, not the old one's highlighting
  return (
    <code key={text} ref={code}>
      {text}
    </code>
  );
}

function DiffLine(props: {
  line: IDiffLine;
  highlight: Highlighter | null;
}): JSX.Element {
  const { line } = props;
  const kind = { ' ': 'same', '-': 'del', '+': 'add' }[line.kind];
  return (
    <div
      className={`jp-MagicPush-diffLine jp-MagicPush-diff-${kind}`}
      aria-label={`${SIGN_LABEL[line.kind]}: ${line.text}`}
    >
      <span className="jp-MagicPush-diffSign" aria-hidden="true">
        {line.kind}
      </span>
      <HighlightedCode text={line.text} highlight={props.highlight} />
    </div>
  );
}

/**
 * Opens the changes `what` names in a main-area tab, two columns wide, for lines too long
 * for the panel. A failure to open is said next to it.
 */
export function SideBySideButton(props: {
  what: string;
  onOpen: () => Promise<void>;
}): JSX.Element {
  const [error, setError] = React.useState<string | null>(null);
  const open = (): void => {
    props.onOpen().then(
      () => setError(null),
      reason =>
        setError(reason instanceof Error ? reason.message : String(reason))
    );
  };
  return (
    <div className="jp-MagicPush-diffActions">
      <button
        className="jp-Button jp-mod-styled jp-MagicPush-sideBySideOpen"
        aria-label={`Open side by side: the changes ${props.what}, in a tab`}
        onClick={open}
      >
        Open side by side
      </button>
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** One cell's diff, headed by the cell as its prompt names it (a link to the cell). */
function DiffSection(props: {
  change: ICellChange;
  children: React.ReactNode;
}): JSX.Element {
  const name = useCellsText([props.change.index]);
  return (
    <section aria-label={`Changes to ${name}`}>
      <h4>
        <CellLinks positions={[props.change.index]} />
      </h4>
      {props.children}
    </section>
  );
}

/** Before and after of every affected cell, as unified diffs. */
export function CellDiffs(props: {
  changes: ICellChange[];
  highlight: Highlighter | null;
}): JSX.Element {
  return (
    <div className="jp-MagicPush-diff">
      {props.changes.map(change => (
        <DiffSection key={change.index} change={change}>
          <div className="jp-MagicPush-diffBody">
            {lineDiff(change.original, change.rewritten).map((line, i) => (
              <DiffLine key={i} line={line} highlight={props.highlight} />
            ))}
          </div>
        </DiffSection>
      ))}
    </div>
  );
}
