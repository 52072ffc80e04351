import { NotebookPanel } from '@jupyterlab/notebook';
import { ReactWidget } from '@jupyterlab/ui-components';
import * as React from 'react';

import {
  INumberedLine,
  ISideBySideRow,
  lineDiff,
  sideBySideRows
} from '../diff';
import { DoneState, MagicPushModel } from '../model';
import {
  DiffTarget,
  findTarget,
  targetCells,
  targetTitle
} from '../sideBySide';
import { ICellChange } from '../tokens';
import { notInBulk } from '../value';
import {
  FoldApplyButton,
  NotInBulk,
  SuggestionApplyButton,
  TogetherApplyButton
} from './ApplyButtons';
import { Highlighter, HighlightedCode } from './CellDiff';
import { CellLinks, ModelContext, useCellsText } from './CellLink';
import { KIND_WORDS } from './SuggestionCard';
import { useAction } from './useAction';
import { useModel } from './useModel';

type Side = 'before' | 'after';

const SIDE_TITLE: Record<Side, string> = {
  before: 'As it is',
  after: 'Rewritten'
};

/** Keeps an empty slot and a line number one line tall, as a line of code is. */
const NO_BREAK_SPACE = '\u00a0';

/** One side of a row: a line of that side's cell, or the empty slot opposite a change. */
function SideLine(props: {
  line: INumberedLine | null;
  /** The other side has no line here: this one was removed or added. */
  changed: boolean;
  side: Side;
  highlight: Highlighter | null;
}): JSX.Element {
  const { line, side } = props;
  if (line === null) {
    return (
      <div
        className="jp-MagicPush-sbsLine jp-MagicPush-sbsEmpty"
        aria-hidden="true"
      >
        <span className="jp-MagicPush-sbsNumber">{NO_BREAK_SPACE}</span>
      </div>
    );
  }
  const kind = !props.changed ? 'same' : side === 'before' ? 'del' : 'add';
  const words = { same: 'unchanged', del: 'removed', add: 'added' }[kind];
  const sign = { same: ' ', del: '-', add: '+' }[kind];
  const colour =
    kind === 'same' ? 'jp-MagicPush-sbsSame' : `jp-MagicPush-diff-${kind}`;
  return (
    <div
      className={`jp-MagicPush-sbsLine ${colour}`}
      aria-label={`${words}, line ${line.number}: ${line.text}`}
    >
      <span className="jp-MagicPush-sbsNumber" aria-hidden="true">
        {line.number}
      </span>
      <span className="jp-MagicPush-diffSign" aria-hidden="true">
        {sign}
      </span>
      <HighlightedCode text={line.text} highlight={props.highlight} />
    </div>
  );
}

/**
 * One side of a cell's rows. Lines never wrap, so every row is one line tall and the two
 * columns stay aligned row by row; a long line scrolls sideways (the column is focusable,
 * so the keyboard scrolls it too).
 */
function SideColumn(props: {
  side: Side;
  rows: ISideBySideRow[];
  cellName: string;
  highlight: Highlighter | null;
}): JSX.Element {
  const { side, rows } = props;
  const other: Side = side === 'before' ? 'after' : 'before';
  return (
    <div className={`jp-MagicPush-sbsColumn jp-MagicPush-sbsColumn-${side}`}>
      <h4>{SIDE_TITLE[side]}</h4>
      <div
        className="jp-MagicPush-sbsScroll"
        role="region"
        aria-label={`${SIDE_TITLE[side]}: ${props.cellName}`}
        tabIndex={0}
      >
        <div className="jp-MagicPush-sbsLines">
          {rows.map((row, i) => (
            <SideLine
              key={i}
              line={row[side]}
              changed={row[other] === null}
              side={side}
              highlight={props.highlight}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

/** A changed cell, headed by its name as the panel gives it: as it is, and rewritten. */
function CellSideBySide(props: {
  change: ICellChange;
  highlight: Highlighter | null;
}): JSX.Element {
  const { change } = props;
  const name = useCellsText([change.index]);
  const rows = sideBySideRows(lineDiff(change.original, change.rewritten));
  return (
    <section className="jp-MagicPush-sbsCell" aria-label={`Changes to ${name}`}>
      <h3>
        <CellLinks positions={[change.index]} />
      </h3>
      <div className="jp-MagicPush-sbsColumns">
        {(['before', 'after'] as Side[]).map(side => (
          <SideColumn
            key={side}
            side={side}
            rows={rows}
            cellName={name}
            highlight={props.highlight}
          />
        ))}
      </div>
    </section>
  );
}

/**
 * Apply `target` of `panel`'s result with the model's own action. The tab has the focus
 * when its Apply is clicked, which makes its notebook's result the one shown; anything
 * else is refused rather than applied to another notebook.
 */
function applyTarget(
  model: MagicPushModel,
  panel: NotebookPanel,
  target: DiffTarget
): void {
  const state = model.state;
  if (state.status !== 'done' || state.notebook !== panel) {
    throw new Error(`Show ${panel.title.label} to apply this diff`);
  }
  if (target.kind === 'one') {
    model.apply(target.index);
  } else if (target.kind === 'fold') {
    model.applyFold(target.index);
  } else {
    model.applyTogether(target.pipeline);
  }
}

/** The Apply the target's card has, in the same state and for the same reason. */
function TargetApply(props: {
  model: MagicPushModel;
  done: DoneState;
  target: DiffTarget;
}): JSX.Element {
  const { model, done, target } = props;
  const [error, act] = useAction();
  const apply = (): void =>
    act(() => applyTarget(model, done.notebook, target));
  let button: JSX.Element;
  if (target.kind === 'one') {
    button = (
      <SuggestionApplyButton
        suggestion={done.result.suggestions[target.index]}
        applied={done.applied.has(target.index)}
        onApply={apply}
      />
    );
  } else if (target.kind === 'fold') {
    button = (
      <FoldApplyButton
        fold={(done.result.folds ?? [])[target.index]}
        applied={done.appliedFolds.has(target.index)}
        onApply={apply}
      />
    );
  } else {
    const together = (done.result.together ?? []).find(
      t => t.pipeline === target.pipeline
    )!;
    const applied = done.appliedTogether.has(target.pipeline);
    const blockers = notInBulk(done.result, together);
    button = (
      <>
        <NotInBulk notInBulk={blockers} applied={applied} />
        <TogetherApplyButton
          together={together}
          applied={applied}
          notInBulk={blockers}
          onApply={apply}
        />
      </>
    );
  }
  return (
    <div className="jp-MagicPush-sbsApply">
      {button}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** What the target does, in the words of its card. */
function TargetSummary(props: {
  done: DoneState;
  target: DiffTarget;
}): JSX.Element {
  const { done, target } = props;
  if (target.kind === 'together') {
    const together = (done.result.together ?? []).find(
      t => t.pipeline === target.pipeline
    )!;
    return (
      <p>
        Every filter of pipeline <code>{target.pipeline}</code> at once,{' '}
        {KIND_WORDS[together.kind]}
      </p>
    );
  }
  if (target.kind === 'fold') {
    return <p>{(done.result.folds ?? [])[target.index]?.reason}</p>;
  }
  const s = done.result.suggestions[target.index];
  return (
    <p>
      <code>{s.predicate}</code> at source <code>{s.source}</code>,{' '}
      {KIND_WORDS[s.kind]}
    </p>
  );
}

function TargetDiff(props: {
  model: MagicPushModel;
  done: DoneState;
  target: DiffTarget;
  highlight: Highlighter | null;
}): JSX.Element {
  const { done, target } = props;
  return (
    <>
      <header className="jp-MagicPush-sbsHeader">
        <h2>{targetTitle(done.result, target)}</h2>
        <TargetSummary done={done} target={target} />
        <TargetApply model={props.model} done={done} target={target} />
      </header>
      {targetCells(done.result, target).map(change => (
        <CellSideBySide
          key={change.index}
          change={change}
          highlight={props.highlight}
        />
      ))}
    </>
  );
}

/**
 * A suggestion's (or a joint rewrite's) changed cells side by side, from `notebook`'s
 * current result: `targetKey` finds it again after the notebook is optimized again.
 */
export function SideBySideView(props: {
  model: MagicPushModel;
  notebook: NotebookPanel;
  targetKey: string;
  highlight: Highlighter | null;
}): JSX.Element {
  const { model, notebook } = props;
  const done = useModel(model, m => m.resultOf(notebook));
  const target = done ? findTarget(done.result, props.targetKey) : null;
  return (
    <ModelContext.Provider value={model}>
      {done && target ? (
        <TargetDiff
          model={model}
          done={done}
          target={target}
          highlight={props.highlight}
        />
      ) : (
        // the tab closes when the run ends without this suggestion
        <p className="jp-MagicPush-muted" role="status">
          The notebook is being optimized again; this diff shows the new result
          when the run ends.
        </p>
      )}
    </ModelContext.Provider>
  );
}

/** The content of a side-by-side tab. */
export class SideBySideWidget extends ReactWidget {
  constructor(
    private readonly _model: MagicPushModel,
    readonly notebook: NotebookPanel,
    readonly targetKey: string,
    private readonly _highlight: Highlighter | null
  ) {
    super();
    this.addClass('jp-MagicPush-sideBySide');
  }

  protected render(): JSX.Element {
    return (
      <SideBySideView
        model={this._model}
        notebook={this.notebook}
        targetKey={this.targetKey}
        highlight={this._highlight}
      />
    );
  }
}
