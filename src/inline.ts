import { Cell, ICellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ReactWidget } from '@jupyterlab/ui-components';
import { IDisposable } from '@lumino/disposable';
import { PanelLayout, Widget } from '@lumino/widgets';
import * as React from 'react';

import {
  BannerEntry,
  bannerEntries,
  dismissedKeys,
  entryKeys,
  looksLikeFilter,
  METADATA_KEY,
  optimizesAfterCellRun,
  withDismissed
} from './banners';
import { InlineBanner } from './components/InlineBanner';
import { Highlighter } from './components/CellDiff';
import { cellOfResult, MagicPushModel, ModelPart, ModelState } from './model';

type Done = Extract<ModelState, { status: 'done' }>;

/** The keys dismissed in a cell's metadata. */
function dismissedIn(cell: ICellModel): string[] {
  return dismissedKeys(cell.getMetadata(METADATA_KEY));
}

/** Remember in a cell's metadata that `keys` were dismissed there. */
function dismiss(cell: ICellModel, keys: string[]): void {
  cell.setMetadata(
    METADATA_KEY,
    withDismissed(cell.getMetadata(METADATA_KEY), keys)
  );
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
    _model.changed.connect(this._onChanged, this);
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
    const runsThen = this._model.runs;
    this._timer = window.setTimeout(() => {
      const optimizes = optimizesAfterCellRun({
        runsThen,
        runsNow: this._model.runs,
        running: this._model.state.status === 'running',
        sameNotebook: this._model.notebook === panel
      });
      if (optimizes) {
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
    this._model.changed.disconnect(this._onChanged, this);
    this._clear();
  }

  private _onChanged(_: MagicPushModel, part: ModelPart): void {
    if (part === 'state' || part === 'settings') {
      this._update();
    }
  }

  private _update(): void {
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
    // positions are those of the optimized notebook: follow the cell by id if cells moved
    const cellAt = (position: number): Cell | null =>
      cellOfResult(done, position);
    const entries = bannerEntries(done.result, position => {
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
          dismiss(cell.model, entryKeys(done.result, entry));
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
