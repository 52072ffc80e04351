import { INotebookModel } from '@jupyterlab/notebook';

/** A cell to rewrite: found by id when known, else by its code (which must be in one cell). */
export interface ICellRewrite {
  index?: number;
  cell_id?: string | null;
  original: string;
  rewritten: string;
}

/**
 * The Yjs undo manager of a shared cell. The `ISharedCell` interface does not
 * declare it, but every cell implementation (`YBaseCell`) has one.
 */
function undoManagerOf(shared: object): { stopCapturing(): void } | null {
  const manager = (shared as { undoManager?: { stopCapturing(): void } | null })
    .undoManager;
  return manager ?? null;
}

/** The notebook position of the cell a rewrite is for, or an error message. */
function locate(model: INotebookModel, change: ICellRewrite): number | string {
  const cells = model.cells;
  if (change.index !== undefined) {
    return change.index < cells.length
      ? change.index
      : 'The notebook has fewer cells than when it was optimized';
  }
  const found: number[] = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    const match = change.cell_id
      ? cell.id === change.cell_id
      : cell.sharedModel.getSource() === change.original;
    if (match) {
      found.push(i);
    }
  }
  if (found.length === 1) {
    return found[0];
  }
  if (found.length === 0) {
    return change.cell_id
      ? 'A cell of the suggestion is no longer in the notebook'
      : 'No cell holds the code the suggestion was made for any more';
  }
  return 'Several cells hold the same code; the suggestion cannot tell which one ran';
}

/**
 * Rewrite every cell, each as one undoable change (Ctrl+Z in a cell restores it), after
 * checking that all of them still hold the code the suggestion was made for: either all are
 * rewritten or none. Returns the rewritten cells' positions; throws with a readable message.
 */
export function rewriteCells(
  model: INotebookModel,
  changes: ICellRewrite[]
): number[] {
  const targets = changes.map(change => {
    const position = locate(model, change);
    if (typeof position === 'string') {
      throw new Error(`${position}; run the optimizer again`);
    }
    const cell = model.cells.get(position);
    if (cell.sharedModel.getSource() !== change.original) {
      throw new Error(
        `Cell ${position + 1} changed since the optimization; run the optimizer again`
      );
    }
    return { position, shared: cell.sharedModel, rewritten: change.rewritten };
  });
  for (const { shared, rewritten } of targets) {
    // Stop capturing around the edit so Ctrl+Z undoes exactly this rewrite
    // instead of merging it with the user's last typing.
    const undo = undoManagerOf(shared);
    undo?.stopCapturing();
    shared.transact(() => shared.setSource(rewritten));
    undo?.stopCapturing();
  }
  return targets.map(t => t.position);
}
