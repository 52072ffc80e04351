import { Cell, ICellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ReactWidget } from '@jupyterlab/ui-components';
import { IDisposable } from '@lumino/disposable';
import { PanelLayout, Widget } from '@lumino/widgets';
import * as React from 'react';

import { BannerEntry, InlineBanner } from './components/InlineBanner';
import { Highlighter } from './components/CellDiff';
import { MagicPushModel, ModelState } from './model';
import { ISuggestion } from './tokens';

/** Cell metadata key of what MagicPush keeps in a notebook: the dismissed suggestions. */
export const METADATA_KEY = 'magicpush';

type Done = Extract<ModelState, { status: 'done' }>;

/** What a dismissal remembers: the source and the predicate, which outlive a run's numbering. */
export function dismissalKey(s: ISuggestion): string {
  return `${s.source}: ${s.predicate}`;
}

/** The keys dismissed in a cell's metadata (anything malformed counts as none). */
export function dismissedIn(cell: ICellModel): string[] {
  const stored = cell.getMetadata(METADATA_KEY) as
    { dismissed?: unknown } | undefined;
  const dismissed = stored?.dismissed;
  return Array.isArray(dismissed)
    ? dismissed.filter((k): k is string => typeof k === 'string')
    : [];
}

function dismiss(cell: ICellModel, keys: string[]): void {
  const stored = cell.getMetadata(METADATA_KEY);
  const base =
    stored && typeof stored === 'object' && !Array.isArray(stored)
      ? (stored as { [key: string]: unknown })
      : {};
  const dismissed = [...new Set([...dismissedIn(cell), ...keys])];
  cell.setMetadata(METADATA_KEY, { ...base, dismissed });
}

/**
 * A code cell whose code looks like it filters rows: only its runs start an
 * optimization on their own (a run of any other cell cannot add a late filter).
 */
export function looksLikeFilter(code: string): boolean {
  return /\.(filter|where)\s*\(|\[[^\]]*(<|>|==|!=)[^\]]*\]/.test(code);
}

/**
 * Banner entries per notebook position of the late filter's cell: a pipeline with a joint
 * rewrite gets one entry for all its suggestions, others one each. Dismissed ones are left out.
 */
export function bannerEntries(
  done: Done,
  dismissedAt: (position: number) => string[]
): Map<number, BannerEntry[]> {
  const byCell = new Map<number, BannerEntry[]>();
  const add = (position: number, entry: BannerEntry): void => {
    byCell.set(position, [...(byCell.get(position) ?? []), entry]);
  };
  const { suggestions, together } = done.result;
  const jointly = new Set((together ?? []).map(t => t.pipeline));
  const placed = new Set<string>();
  suggestions.forEach((s, index) => {
    const position = s.late_filter_cell;
    if (position === null || position === undefined) {
      return;
    }
    const dismissed = dismissedAt(position);
    if (s.pipeline && jointly.has(s.pipeline)) {
      if (placed.has(s.pipeline)) {
        return;
      }
      placed.add(s.pipeline);
      const indices = suggestions
        .map((t, i) => (t.pipeline === s.pipeline ? i : -1))
        .filter(i => i >= 0);
      const keys = indices.map(i => dismissalKey(suggestions[i]));
      if (!keys.every(k => dismissed.includes(k))) {
        add(position, { kind: 'together', pipeline: s.pipeline, indices });
      }
    } else if (!dismissed.includes(dismissalKey(s))) {
      add(position, { kind: 'one', index });
    }
  });
  return byCell;
}

function keysOf(done: Done, entry: BannerEntry): string[] {
  const indices = entry.kind === 'one' ? [entry.index] : entry.indices;
  return indices.map(i => dismissalKey(done.result.suggestions[i]));
}

/**
 * Places a banner under each cell whose late filter can move, for the model's latest
 * result, and removes them when a newer result comes or the setting is turned off.
 * A banner is a child widget of its cell, so it stays with the cell when a windowed
 * notebook detaches and re-attaches cells while scrolling.
 */
export class InlineSuggestions implements IDisposable {
  constructor(
    private readonly _model: MagicPushModel,
    private readonly _highlight: Highlighter | null
  ) {
    _model.stateChanged.connect(this._onState, this);
    _model.settingsChanged.connect(this._onState, this);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /**
   * Optimize after a successful run of a cell that filters, when inline suggestions are on;
   * a burst of runs (Run All) starts one optimization, after the last of them.
   */
  cellExecuted(panel: NotebookPanel, cell: Cell, success: boolean): void {
    if (
      !success ||
      !this._model.settings.inlineSuggestions ||
      cell.model.type !== 'code' ||
      !looksLikeFilter(cell.model.sharedModel.getSource())
    ) {
      return;
    }
    window.clearTimeout(this._timer);
    this._timer = window.setTimeout(() => {
      if (
        this._model.notebook === panel &&
        this._model.state.status !== 'running'
      ) {
        void this._model.optimize();
      }
    }, 500);
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    window.clearTimeout(this._timer);
    this._model.stateChanged.disconnect(this._onState, this);
    this._model.settingsChanged.disconnect(this._onState, this);
    this._clear();
  }

  private _onState(): void {
    const state = this._model.state;
    if (!this._model.settings.inlineSuggestions) {
      this._clear();
      return;
    }
    if (state.status !== 'done' || state.run === this._run) {
      return; // a run in progress hides its predecessor's banners itself
    }
    this._clear();
    this._run = state.run;
    void this._place(state);
  }

  private async _place(done: Done): Promise<void> {
    const panel = done.notebook;
    const cellAt = (position: number): Cell | null => {
      // positions are those of the optimized notebook: follow the cell by id if cells moved
      const id = done.cellIds[position];
      const widgets = panel.content.widgets;
      return (
        (id ? widgets.find(w => w.model.id === id) : widgets[position]) ?? null
      );
    };
    const entries = bannerEntries(done, position => {
      const cell = cellAt(position);
      return cell ? dismissedIn(cell.model) : [];
    });
    for (const [position, list] of entries) {
      const cell = cellAt(position);
      if (!cell || cell.isDisposed) {
        continue;
      }
      // a windowed notebook builds a cell's DOM only when it first comes into view
      await cell.ready;
      if (this._run !== done.run || cell.isDisposed) {
        return;
      }
      this._mount(cell, list, done);
    }
  }

  /** A banner with `list` at the end of `cell`; dismissing an entry re-mounts the rest. */
  private _mount(cell: Cell, list: BannerEntry[], done: Done): void {
    const banner: Widget = ReactWidget.create(
      React.createElement(InlineBanner, {
        model: this._model,
        run: done.run,
        entries: list,
        highlight: this._highlight,
        onDismiss: entry => {
          dismiss(cell.model, keysOf(done, entry));
          this._banners = this._banners.filter(b => b !== banner);
          banner.dispose();
          const rest = list.filter(e => e !== entry);
          if (rest.length > 0) {
            this._mount(cell, rest, done);
          }
        }
      })
    );
    banner.addClass('jp-MagicPush-bannerHost');
    (cell.layout as PanelLayout).addWidget(banner);
    this._banners.push(banner);
  }

  private _clear(): void {
    this._banners.forEach(b => b.dispose());
    this._banners = [];
    this._run = -1;
  }

  private _isDisposed = false;
  private _timer = 0;
  private _run = -1;
  private _banners: Widget[] = [];
}
