/**
 * What the browser tests ask of the notebook and the sidebar, shared by the spec files.
 */
import { expect, IJupyterLabPageFixture } from '@jupyterlab/galata';

export const SIDEBAR_ID = 'magicpush-lab-sidebar';

/** Open the MagicPush sidebar and wait until the notebook's kernel traces PySpark. */
export async function openTracingSidebar(page: IJupyterLabPageFixture) {
  // activateById, not a click on the tab: after a reload the restored panel may
  // already be open, and clicking its tab would close it
  await page.evaluate(
    id => (window as any).jupyterapp.shell.activateById(id),
    SIDEBAR_ID
  );
  const sidebar = page.locator(`#${SIDEBAR_ID}`);
  // the kernel extension loads once the kernel is idle; cells must run after that
  await expect(sidebar.locator('[data-tracing="on"]')).toBeVisible({
    timeout: 60 * 1000
  });
  return sidebar;
}

/** The source of the active notebook's cell `index`. */
export async function cellSource(
  page: IJupyterLabPageFixture,
  index: number
): Promise<string> {
  return page.evaluate(i => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return panel.content.model.cells.get(i).sharedModel.getSource() as string;
  }, index);
}
