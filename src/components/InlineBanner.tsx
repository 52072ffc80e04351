import * as React from 'react';

import { BannerEntry, entryCells, entrySuggestions } from '../banners';
import { MagicPushModel, ModelState } from '../model';
import { ISuggestion } from '../tokens';
import { CellDiffs, Highlighter } from './CellDiff';
import { formatReduction, savingText } from './format';
import { RerunNote } from './Rerun';
import { useAction } from './useAction';
import { useModel } from './useModel';
import { Why } from './Why';
import { ModelContext } from './CellLink';

type Done = Extract<ModelState, { status: 'done' }>;

function isApplied(done: Done, entry: BannerEntry): boolean {
  return entry.kind === 'one'
    ? done.applied.has(entry.index)
    : done.appliedTogether.has(entry.pipeline);
}

/** " (−96% rows)", " (≈ −96% rows, estimated)", " (counting rows…)" or "". */
function reductionText(done: Done, suggestions: ISuggestion[]): string {
  if (suggestions.length !== 1) {
    return '';
  }
  const s = suggestions[0];
  if (s.row_reduction !== null && s.rows_before !== null) {
    const figure = formatReduction(s.row_reduction);
    const saving = savingText(s.time_saved);
    const time = saving ? `, ${saving}, an estimate` : '';
    return s.estimated
      ? ` (≈ ${figure} rows, estimated${time})`
      : ` (${figure} rows${time})`;
  }
  return done.measuring === 'running' ? ' (counting rows…)' : '';
}

function Names(props: { names: string[] }): JSX.Element {
  return (
    <>
      {props.names.map((name, i) => (
        <React.Fragment key={name}>
          {i > 0 && (i === props.names.length - 1 ? ' and ' : ', ')}
          <code>{name}</code>
        </React.Fragment>
      ))}
    </>
  );
}

/** One line of a banner: the sentence and its Apply/Undo, Diff, Why and Dismiss buttons. */
function BannerLine(props: {
  model: MagicPushModel;
  done: Done;
  entry: BannerEntry;
  highlight: Highlighter | null;
  onDismiss: () => void;
}): JSX.Element {
  const { model, done, entry, highlight, onDismiss } = props;
  const [open, setOpen] = React.useState<'diff' | 'why' | null>(null);
  const [error, act] = useAction();
  const suggestions = entrySuggestions(done.result, entry);
  const sources = suggestions.map(s => s.source);
  const equivalent = suggestions.every(s => s.kind === 'equivalent');
  const applied = isApplied(done, entry);
  const cells = entryCells(done.result, entry);
  const what = sources.join(' and ');
  const apply = (): void =>
    act(() =>
      entry.kind === 'one'
        ? model.apply(entry.index)
        : model.applyTogether(entry.pipeline)
    );
  const undo = (): void =>
    act(() =>
      entry.kind === 'one'
        ? model.undo(entry.index)
        : model.undoTogether(entry.pipeline)
    );
  const toggle = (panel: 'diff' | 'why'): void =>
    setOpen(open === panel ? null : panel);
  return (
    <div
      className="jp-MagicPush-bannerLine"
      onKeyDown={event => {
        if (event.key === 'Escape' && open !== null) {
          event.stopPropagation(); // closes the panel, not the notebook's edit mode
          setOpen(null);
        }
      }}
    >
      <p className="jp-MagicPush-bannerText">
        {applied ? (
          <>
            Applied: the cells now filter <Names names={sources} /> at the
            source.
          </>
        ) : equivalent ? (
          <>
            This filter can move to <Names names={sources} />
            {reductionText(done, suggestions)}.
          </>
        ) : (
          <>
            A proved filter can also run at <Names names={sources} />
            {reductionText(done, suggestions)}; this one stays.
          </>
        )}
      </p>
      <div className="jp-MagicPush-bannerActions">
        {applied ? (
          <button
            className="jp-Button jp-mod-styled jp-MagicPush-bannerButton"
            onClick={undo}
            aria-label={`Undo suggestion: restore the cells rewritten for ${what}`}
          >
            Undo
          </button>
        ) : (
          <button
            className="jp-Button jp-mod-styled jp-mod-accept jp-MagicPush-bannerButton"
            onClick={apply}
            disabled={cells.length === 0}
            aria-label={`Apply: filter ${what} at the source`}
          >
            Apply
          </button>
        )}
        <button
          className="jp-Button jp-mod-styled jp-MagicPush-bannerButton"
          aria-expanded={open === 'diff'}
          aria-label={`Diff: ${open === 'diff' ? 'hide' : 'show'} the changes for ${what}`}
          onClick={() => toggle('diff')}
        >
          Diff
        </button>
        <button
          className="jp-Button jp-mod-styled jp-MagicPush-bannerButton"
          aria-expanded={open === 'why'}
          aria-label={`Why: ${open === 'why' ? 'hide' : 'show'} why filtering ${what} is correct`}
          onClick={() => toggle('why')}
        >
          Why
        </button>
        {!applied && (
          <button
            className="jp-Button jp-mod-styled jp-MagicPush-bannerButton"
            onClick={onDismiss}
            aria-label={`Dismiss the suggestion for ${what}; it is not shown again for this cell`}
          >
            Dismiss
          </button>
        )}
      </div>
      {applied && (
        <RerunNote cells={cells} onRerun={() => model.rerunFrom(cells)} />
      )}
      {open === 'diff' && <CellDiffs changes={cells} highlight={highlight} />}
      {open === 'why' &&
        suggestions.map(s => (
          <section key={s.source} aria-label={`Why ${s.source}`}>
            {suggestions.length > 1 && (
              <h4>
                <code>{s.source}</code>
              </h4>
            )}
            <Why suggestion={s} />
          </section>
        ))}
      {error && (
        <p className="jp-MagicPush-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

const stateOf = (model: MagicPushModel): ModelState => model.state;

/**
 * The banner under a cell whose late filter can move: one line per suggestion
 * (or per pipeline, when its filters apply together). Re-renders on every model change.
 */
export function InlineBanner(props: {
  model: MagicPushModel;
  /** The optimization the entries come from; a later one gets banners of its own. */
  run: number;
  entries: BannerEntry[];
  highlight: Highlighter | null;
  onDismiss: (entry: BannerEntry) => void;
}): JSX.Element | null {
  const { model, entries, highlight, onDismiss } = props;
  const state = useModel(model, stateOf);
  if (state.status !== 'done' || state.run !== props.run) {
    return null;
  }
  return (
    <ModelContext.Provider value={model}>
      <aside
        className="jp-MagicPush-banner"
        aria-label="MagicPush suggestion for this cell"
      >
        {entries.map(entry => (
          <BannerLine
            key={
              entry.kind === 'one' ? `s${entry.index}` : `p${entry.pipeline}`
            }
            model={model}
            done={state}
            entry={entry}
            highlight={highlight}
            onDismiss={() => onDismiss(entry)}
          />
        ))}
      </aside>
    </ModelContext.Provider>
  );
}
