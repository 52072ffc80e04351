import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import {
  INotebookTracker,
  NotebookActions,
  NotebookPanel
} from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStateDB } from '@jupyterlab/statedb';

import { applyRendererFactory } from './applyRenderer';
import { MagicPushSidebar } from './components/Sidebar';
import { magicpushIcon } from './icons';
import { InlineSuggestions } from './inline';
import { MagicPushModel } from './model';
import { readSettings } from './settings';
import { targetOfArgs } from './sideBySide';
import { SideBySideTabs } from './sideBySideTabs';
import { CommandIDs, PLUGIN_ID } from './tokens';

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'Proved predicate pushdown for PySpark notebook pipelines.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [
    ILabShell,
    ICommandPalette,
    ISettingRegistry,
    IRenderMimeRegistry,
    IEditorLanguageRegistry,
    IStateDB
  ],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    labShell: ILabShell | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    rendermime: IRenderMimeRegistry | null,
    languages: IEditorLanguageRegistry | null,
    stateDB: IStateDB | null
  ): void => {
    // before any notebook opens: each notebook's registry is a copy of this one
    const model = new MagicPushModel();
    rendermime?.addFactory(
      applyRendererFactory(tracker, panel => model.appliedElsewhere(panel))
    );
    model.stateDB = stateDB;
    void model.checkServer();

    // each notebook's last result comes back when it opens, after a page reload too
    const opened = (panel: NotebookPanel): void => {
      model.track(panel);
      model.cancelOnEscape(panel);
      void model.restore(panel);
    };
    tracker.forEach(opened);
    tracker.widgetAdded.connect((_, panel) => opened(panel));

    const python = languages?.findBest('python') ?? null;
    const highlight = languages
      ? (code: string, el: HTMLElement) => languages.highlight(code, python, el)
      : null;
    const sideBySide = new SideBySideTabs(model, app.shell, highlight);

    // a notebook's side-by-side diff in view keeps that notebook's result shown
    const updateNotebook = (): void => {
      const current = labShell ? labShell.currentWidget : tracker.currentWidget;
      model.notebook =
        current instanceof NotebookPanel
          ? current
          : sideBySide.notebookOf(current);
    };
    if (labShell) {
      labShell.currentChanged.connect(updateNotebook);
    } else {
      tracker.currentChanged.connect(updateNotebook);
    }
    updateNotebook();

    const inline = new InlineSuggestions(model, highlight);
    NotebookActions.executed.connect((_, { notebook, cell, success }) => {
      const panel = tracker.find(p => p.content === notebook);
      if (panel) {
        inline.cellExecuted(panel, cell, success);
        model.cellsRan(panel);
      }
    });

    app.commands.addCommand(CommandIDs.openSideBySide, {
      label: 'Open Diff Side by Side (MagicPush)',
      caption:
        "Open a suggestion's changed cells in a tab, as they are and rewritten",
      execute: args => sideBySide.open(targetOfArgs(args))
    });
    const sidebar = new MagicPushSidebar(model, highlight, async target => {
      await app.commands.execute(CommandIDs.openSideBySide, target);
    });
    sidebar.id = 'magicpush-lab-sidebar';
    sidebar.title.icon = magicpushIcon;
    sidebar.title.caption = 'MagicPush: proved predicate pushdown';
    app.shell.add(sidebar, 'right', { rank: 600 });

    app.commands.addCommand(CommandIDs.openSidebar, {
      label: 'Show MagicPush Sidebar',
      execute: () => app.shell.activateById(sidebar.id)
    });
    app.commands.addCommand(CommandIDs.optimize, {
      label: 'Optimize PySpark Pipeline (MagicPush)',
      caption: 'Find filters that can be proved safe to apply at the sources',
      icon: magicpushIcon,
      isEnabled: () =>
        model.notebook !== null && model.state.status !== 'running',
      execute: async () => {
        app.shell.activateById(sidebar.id);
        await model.optimize();
      }
    });
    model.changed.connect((_, part) => {
      if (part === 'state' || part === 'notebook') {
        app.commands.notifyCommandChanged(CommandIDs.optimize);
      }
    });

    if (palette) {
      palette.addItem({ command: CommandIDs.optimize, category: 'MagicPush' });
      palette.addItem({
        command: CommandIDs.openSidebar,
        category: 'MagicPush'
      });
    }

    if (settingRegistry) {
      settingRegistry
        .load(PLUGIN_ID)
        .then(settings => {
          model.settings = readSettings(settings.composite);
          settings.changed.connect(() => {
            model.settings = readSettings(settings.composite);
          });
        })
        .catch(reason => {
          console.error('MagicPush Lab: could not load settings', reason);
        });
    }
  }
};

export default plugin;
