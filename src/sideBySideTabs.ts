import { JupyterFrontEnd } from '@jupyterlab/application';
import { MainAreaWidget } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { Highlighter } from './components/CellDiff';
import { SideBySideWidget } from './components/SideBySide';
import { magicpushIcon } from './icons';
import { MagicPushModel, ModelPart } from './model';
import { DiffTarget, findTarget, targetKey, targetTitle } from './sideBySide';

type Tab = MainAreaWidget<SideBySideWidget>;

/**
 * The side-by-side diff tabs: one per suggestion (or joint rewrite) of a notebook, each
 * reading its notebook's result from the model. When the notebook is optimized again, a
 * tab whose suggestion is in the new result shows it (the cells' code may have changed);
 * the others close, since what they would apply is no longer offered. Closing the
 * notebook closes its tabs.
 */
export class SideBySideTabs {
  constructor(
    private readonly _model: MagicPushModel,
    private readonly _shell: JupyterFrontEnd.IShell,
    private readonly _highlight: Highlighter | null
  ) {
    _model.changed.connect(this._onModelChanged, this);
  }

  /** Open the tab of `target` of the shown result, or bring its open tab to the front. */
  open(target: DiffTarget): void {
    const state = this._model.state;
    if (state.status !== 'done') {
      throw new Error('There is no optimization result to show side by side');
    }
    const key = targetKey(state.result, target);
    const tab =
      this._tabs.find(
        t =>
          t.content.notebook === state.notebook && t.content.targetKey === key
      ) ?? this._add(state.notebook, key);
    this._shell.activateById(tab.id);
  }

  /**
   * The notebook whose diff `widget` shows, or null for any other widget: with its diff in
   * view, a notebook's result stays the one shown, and the diff's Apply acts on it.
   */
  notebookOf(widget: Widget | null): NotebookPanel | null {
    return this._tabs.find(t => t === widget)?.content.notebook ?? null;
  }

  private _add(notebook: NotebookPanel, key: string): Tab {
    const content = new SideBySideWidget(
      this._model,
      notebook,
      key,
      this._highlight
    );
    const tab = new MainAreaWidget({ content });
    tab.id = `magicpush-side-by-side-${++this._opened}`;
    tab.title.icon = magicpushIcon;
    tab.title.closable = true;
    this._retitle(tab);
    const closeWithNotebook = (): void => tab.close();
    notebook.disposed.connect(closeWithNotebook);
    tab.disposed.connect(() => {
      notebook.disposed.disconnect(closeWithNotebook);
      this._tabs = this._tabs.filter(t => t !== tab);
    });
    this._tabs.push(tab);
    this._shell.add(tab, 'main', { mode: 'tab-after', ref: notebook.id });
    return tab;
  }

  /** Name the tab after its target in its notebook's result, if it has one. */
  private _retitle(tab: Tab): void {
    const done = this._model.resultOf(tab.content.notebook);
    const target = done ? findTarget(done.result, tab.content.targetKey) : null;
    if (!done || !target) {
      return;
    }
    tab.title.label = targetTitle(done.result, target);
    tab.title.caption = `${tab.title.label}, in ${tab.content.notebook.title.label}: each changed cell as it is and rewritten`;
  }

  /**
   * A result shown, replaced or gone: tabs follow their suggestion into the new result, and
   * close once it has none. While a run goes on there is no result yet to decide by.
   */
  private _onModelChanged(_: MagicPushModel, part: ModelPart): void {
    if (part !== 'state' || this._model.state.status === 'running') {
      return;
    }
    for (const tab of [...this._tabs]) {
      const done = this._model.resultOf(tab.content.notebook);
      if (done && findTarget(done.result, tab.content.targetKey)) {
        this._retitle(tab);
      } else {
        tab.close();
      }
    }
  }

  private _tabs: Tab[] = [];
  private _opened = 0;
}
