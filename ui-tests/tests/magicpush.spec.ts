import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as path from 'path';

const NOTEBOOK = 'udf_filter.ipynb';
const SIDEBAR_ID = 'magicpush-lab-sidebar';

// Spark starts in the kernel and writes a million rows of Parquet first.
test.setTimeout(5 * 60 * 1000);
test.use({ viewport: { width: 1280, height: 800 } });

/** Open the MagicPush sidebar and wait until the notebook's kernel traces PySpark. */
async function openTracingSidebar(page: IJupyterLabPageFixture) {
  await page.sidebar.openTab(SIDEBAR_ID);
  const sidebar = page.locator(`#${SIDEBAR_ID}`);
  await expect(sidebar.locator('[data-tracing="on"]')).toBeVisible({
    timeout: 60 * 1000
  });
  return sidebar;
}

async function cellSource(
  page: IJupyterLabPageFixture,
  index: number
): Promise<string> {
  return page.evaluate(i => {
    const app = (window as any).jupyterapp;
    const panel = app.shell.currentWidget;
    return panel.content.model.cells.get(i).sharedModel.getSource() as string;
  }, index);
}

test('the sidebar says when the active tab is not a notebook', async ({
  page
}) => {
  await page.sidebar.openTab(SIDEBAR_ID);
  const sidebar = page.locator(`#${SIDEBAR_ID}`);
  await expect(
    sidebar.getByText('The active tab is not a notebook')
  ).toBeVisible();
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeDisabled();
});

test('a notebook without PySpark calls gets an explanation, not a crash', async ({
  page
}) => {
  await page.notebook.createNew('empty.ipynb');
  await page.notebook.setCell(0, 'code', 'x = 1 + 1');
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(sidebar.getByRole('alert')).toContainText(
    'No PySpark DataFrame has been recorded in this kernel'
  );
});

test('optimizing the UDF filter notebook shows a proved, measured pushdown', async ({
  page,
  tmpPath
}) => {
  const example = path.resolve(__dirname, '..', '..', 'examples', NOTEBOOK);
  await page.contents.uploadFile(example, `${tmpPath}/${NOTEBOOK}`);
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  await page.notebook.activate(NOTEBOOK);
  // The kernel extension loads once the kernel is idle; the cells must run after that.
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();

  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();

  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  await expect(card.locator('.jp-MagicPush-category').first()).toHaveText(
    'ROW-TO-ROW'
  );
  await expect(card).toContainText('base case: 1 row');
  await expect(card.locator('.jp-MagicPush-source')).toContainText('orders');
  await expect(card.locator('.jp-MagicPush-rows')).toHaveText(
    /rows: 1,000,000 → [\d,]+ \(−\d+\.\d%\)/,
    // counted on the kernel after the suggestions show
    { timeout: 2 * 60 * 1000 }
  );
  // Diff: the read gains the filter, highlighted in the editor theme
  await card.getByRole('button', { name: /^Diff: show/ }).click();
  const added = card.locator('.jp-MagicPush-diff-add').first();
  await expect(added).toContainText('.filter(');
  await expect(added.locator('code span').first()).toBeVisible();
  await expect(
    card.getByRole('button', { name: /^Diff: hide/ })
  ).toHaveAttribute('aria-expanded', 'true');
  await page.sidebar.close('left');
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'sidebar-suggestion.png')
  });

  // Apply rewrites the cell that reads `orders`; undo in that cell restores it.
  const readCell = 3;
  const original = await cellSource(page, readCell);
  await card.getByRole('button', { name: /^Apply/ }).click();
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  const rewritten = await cellSource(page, readCell);
  expect(rewritten).not.toEqual(original);
  expect(rewritten).toContain('.filter(');

  await page.notebook.enterCellEditingMode(readCell);
  await page.keyboard.press('Control+z');
  await expect.poll(() => cellSource(page, readCell)).toEqual(original);
});

const JOIN_CELLS = [
  'from pyspark.sql import SparkSession, functions as F\n' +
    'spark = SparkSession.builder.master("local[1]").getOrCreate()\n' +
    'a = spark.createDataFrame([(i, i % 10) for i in range(50)], ["k", "v"])\n' +
    'b = spark.createDataFrame([(i, i % 7) for i in range(50)], ["k", "x"])',
  'j = a.join(b, "k").withColumn("s", F.col("v") % 10 + 1)\n' +
    'out = j.filter((F.col("s") > 5) & (F.col("x") < 3))'
];

test('two filters of one pipeline apply together, not one after the other', async ({
  page
}) => {
  await page.notebook.createNew('join.ipynb');
  await page.notebook.setCell(0, 'code', JOIN_CELLS[0]);
  await page.notebook.addCell('code', JOIN_CELLS[1]);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();

  const cards = sidebar.locator('.jp-MagicPush-card');
  await expect(cards).toHaveCount(2, { timeout: 3 * 60 * 1000 });
  const together = sidebar.locator('.jp-MagicPush-together');
  await expect(together).toContainText('Pipeline out');

  // Both filters rewrite cell 1: applying one, then the other, is refused with a way out.
  await cards
    .nth(0)
    .getByRole('button', { name: /^Apply/ })
    .click();
  await cards
    .nth(1)
    .getByRole('button', { name: /^Apply/ })
    .click();
  await expect(cards.nth(1).getByRole('alert')).toContainText('Apply all');
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+z');
  await expect.poll(() => cellSource(page, 0)).toEqual(JOIN_CELLS[0]);

  // A fresh result: Apply all puts both filters into the cell that reads a and b.
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(together).toBeVisible({ timeout: 3 * 60 * 1000 });
  await together.getByRole('button', { name: /^Apply all/ }).click();
  await expect(
    together.getByRole('button', { name: /^Applied/ })
  ).toBeDisabled();
  const rewritten = await cellSource(page, 0);
  expect(rewritten.split('.filter(').length - 1).toBe(2);
});

test('%magicpush apply 1 rewrites the cells from the kernel side, once', async ({
  page
}) => {
  await page.notebook.createNew('magic.ipynb');
  await page.notebook.setCell(0, 'code', JOIN_CELLS[0]);
  await page.notebook.addCell(
    'code',
    'out = a.withColumn("w", F.col("v") * 3).filter(F.col("w") > 20)'
  );
  await page.notebook.addCell('code', '%magicpush --no-measure');
  await page.notebook.addCell('code', '%magicpush apply 1');
  await openTracingSidebar(page);
  await page.notebook.run();

  const output = page.locator('.jp-MagicPush-applyResult');
  await expect(output).toContainText('Applied suggestion 1', {
    timeout: 3 * 60 * 1000
  });
  expect(await cellSource(page, 0)).toContain('.filter(');
  expect(await cellSource(page, 1)).not.toContain('.filter(');

  // Running the same request's output again (a re-render) does not apply it twice.
  const metadata = await page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return panel.content.model.getMetadata('magicpush-applied') as string[];
  });
  expect(metadata).toHaveLength(1);
});

test('cancel stops a run waiting for a busy kernel, at once', async ({
  page
}) => {
  await page.notebook.createNew('busy.ipynb');
  await page.notebook.setCell(0, 'code', JOIN_CELLS[0]);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  // keep the kernel busy: the trace can only be read after this cell
  await page.notebook.addCell('code', 'import time\ntime.sleep(90)');
  await page.notebook.runCell(1, { wait: false });

  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  const cancel = sidebar.getByRole('button', {
    name: /^Cancel: Reading trace/
  });
  await expect(cancel).toBeVisible();
  await cancel.click();
  await expect(
    sidebar.getByText("Run the notebook's PySpark pipeline")
  ).toBeVisible();
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeEnabled();
});

test('why: proof steps explained, and a refused filter shows its counterexample rows', async ({
  page
}) => {
  await page.notebook.createNew('why.ipynb');
  await page.notebook.setCell(0, 'code', JOIN_CELLS[0]);
  await page.notebook.addCell(
    'code',
    'top = a.orderBy("v").limit(3).filter(F.col("k") > 5)\n' +
      'out = b.withColumn("y", F.col("x") * 2).filter(F.col("y") > 8)'
  );
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('checkbox').check(); // every pipeline
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();

  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  await card.getByRole('button', { name: /^Why: show/ }).click();
  await expect(card.locator('.jp-MagicPush-why')).toContainText(
    'keeps, drops or changes each row on its own'
  );

  // the pipelines as graphs: where the filter is, where it goes, barriers on hover
  const graphs = sidebar.locator('.jp-MagicPush-graph');
  await expect(graphs).toHaveCount(2);
  const out = graphs.filter({ hasText: 'out' });
  await expect(out.locator('.jp-MagicPush-graphNode-target')).toHaveCount(1);
  await expect(out.locator('.jp-MagicPush-graphNode-late')).toHaveCount(1);
  await expect(
    graphs.filter({ hasText: 'top' }).locator('title', { hasText: /^limit/ })
  ).toContainText('TopK after orderBy');

  const whyNot = sidebar.getByRole('region', { name: 'Why not further' });
  await expect(whyNot).toContainText('TopK');
  await expect(whyNot).toContainText('would change the result on these rows');
  await expect(whyNot.locator('table tbody tr').first()).toBeVisible();
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'sidebar-why-not.png')
  });
});
