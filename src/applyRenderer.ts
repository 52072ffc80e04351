import { ICodeCellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { cellsRef } from './cellRefs';
import { ICellRewrite, rewriteCells } from './rewrite';
import { APPLY_MIME } from './tokens';

/** What `%magicpush apply N` displays (magicpush_lab/kernel/magic.py). */
interface IApplyRequest {
  id: string;
  created: number;
  what: string;
  cells: ICellRewrite[];
}

/** Notebook metadata key listing the apply requests already carried out. */
const APPLIED_KEY = 'magicpush-applied';

/** An apply request older than this is from an earlier run: it asks again instead of applying. */
const FRESH_SECONDS = 120;

/**
 * Renders `%magicpush apply N` by applying it to the notebook the output is in, once: the
 * request's id is recorded in the notebook's metadata, and a request displayed again later
 * (a reopened notebook) only says what it was.
 */
export class ApplyRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(
    private readonly _tracker: INotebookTracker,
    private readonly _onApplied: (panel: NotebookPanel) => void = () =>
      undefined
  ) {
    super();
    this.addClass('jp-MagicPush-applyOutput');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._request = model.data[APPLY_MIME] as unknown as IApplyRequest;
    if (this.isAttached) {
      this._carryOut();
    }
  }

  protected onAfterAttach(): void {
    this._carryOut();
  }

  private _carryOut(): void {
    const request = this._request;
    if (!request || this._done) {
      return;
    }
    this._done = true;
    const panel = this._tracker.find(p => p.node.contains(this.node));
    this._say(
      panel
        ? this._apply(panel, request)
        : ['error', 'This output is not in a notebook; nothing was applied.']
    );
  }

  private _apply(
    panel: NotebookPanel,
    request: IApplyRequest
  ): [string, string] {
    const model = panel.content.model;
    if (!model) {
      return ['error', 'The notebook is not ready; nothing was applied.'];
    }
    const applied =
      (model.getMetadata(APPLIED_KEY) as string[] | undefined) ?? [];
    if (applied.includes(request.id)) {
      return ['muted', `Applied earlier: ${request.what}.`];
    }
    if (Date.now() / 1000 - request.created > FRESH_SECONDS) {
      return [
        'muted',
        `Not applied: this request is from an earlier run (${request.what}). Run %magicpush apply again.`
      ];
    }
    try {
      const positions = rewriteCells(model, request.cells);
      model.setMetadata(APPLIED_KEY, [...applied, request.id]);
      this._onApplied(panel); // the sidebar shows it applied, not as still to apply
      const cells = cellsRef(
        positions.map(position => {
          const cell = model.cells.get(position);
          const count =
            cell.type === 'code'
              ? ((cell as ICodeCellModel).executionCount ?? null)
              : null;
          return { position, count };
        })
      );
      return [
        'ok',
        `Applied ${request.what} to ${cells}. Ctrl+Z in a cell undoes its rewrite.`
      ];
    } catch (reason) {
      return [
        'error',
        `Not applied: ${reason instanceof Error ? reason.message : String(reason)}`
      ];
    }
  }

  private _say([kind, text]: [string, string]): void {
    const p = document.createElement('p');
    p.className = `jp-MagicPush-applyResult jp-MagicPush-${kind}`;
    p.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    p.textContent = text;
    this.node.replaceChildren(p);
  }

  private _request: IApplyRequest | null = null;
  private _done = false;
}

/** The renderer factory; not `safe`, so an untrusted notebook's saved output never edits it. */
export function applyRendererFactory(
  tracker: INotebookTracker,
  onApplied?: (panel: NotebookPanel) => void
): IRenderMime.IRendererFactory {
  return {
    safe: false,
    mimeTypes: [APPLY_MIME],
    defaultRank: 50,
    createRenderer: () => new ApplyRenderer(tracker, onApplied)
  };
}
