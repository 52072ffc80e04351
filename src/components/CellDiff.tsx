import * as React from 'react';

import { IDiffLine, lineDiff } from '../diff';
import { ICellChange } from '../tokens';
import { CellLinks, useCellsText } from './CellLink';

/** Puts `code`, highlighted as Python in the editor theme's colours, into `el`. */
export type Highlighter = (code: string, el: HTMLElement) => Promise<void>;

const SIGN_LABEL = { ' ': 'unchanged', '-': 'removed', '+': 'added' };

function DiffLine(props: {
  line: IDiffLine;
  highlight: Highlighter | null;
}): JSX.Element {
  const { line, highlight } = props;
  const code = React.useRef<HTMLElement>(null);
  React.useEffect(() => {
    if (!highlight) {
      return;
    }
    // The highlighter appends to the element it is given: highlight into a detached one and
    // swap its children in, so the plain text rendered first is replaced, not repeated. A
    // failure keeps that plain text.
    let current = true;
    const target = document.createElement('code');
    highlight(line.text, target)
      .then(() => {
        if (current && code.current) {
          code.current.replaceChildren(...Array.from(target.childNodes));
        }
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [line.text, highlight]);
  const kind = { ' ': 'same', '-': 'del', '+': 'add' }[line.kind];
  return (
    <div
      className={`jp-MagicPush-diffLine jp-MagicPush-diff-${kind}`}
      aria-label={`${SIGN_LABEL[line.kind]}: ${line.text}`}
    >
      <span className="jp-MagicPush-diffSign" aria-hidden="true">
        {line.kind}
      </span>
      {/* keyed by its text: new text gets a fresh element, not the old one's highlighting */}
      <code key={line.text} ref={code}>
        {line.text}
      </code>
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
