import {
  expect,
  galata,
  IJupyterLabPageFixture,
  test
} from '@jupyterlab/galata';
import type { Locator } from '@playwright/test';
import * as path from 'path';
import { cellSource, openTracingSidebar, SIDEBAR_ID } from './notebook';

const NOTEBOOK = 'udf_filter.ipynb';

// Spark starts in the kernel and writes a million rows of Parquet first.
test.setTimeout(5 * 60 * 1000);
test.use({ viewport: { width: 1280, height: 800 } });

/**
 * Give a control keyboard focus and keep it: a click on a cell activates the notebook a
 * frame later, and activation focuses the active cell, which would take the focus back.
 */
async function focusSteadily(page: IJupyterLabPageFixture, control: Locator) {
  await expect(async () => {
    await control.focus();
    await page.waitForTimeout(250);
    await expect(control).toBeFocused({ timeout: 100 });
  }).toPass({ timeout: 15 * 1000 });
}

/** Wait until the sidebar no longer counts rows on the kernel (its progress line goes). */
async function countingDone(sidebar: Locator) {
  await expect(
    sidebar.getByRole('status').filter({ hasText: 'Counting rows' })
  ).toHaveCount(0, { timeout: 3 * 60 * 1000 });
}

test('the sidebar says when the active tab is not a notebook', async ({
  page
}) => {
  // activateById, not a click on the tab: after a reload the restored panel may
  // already be open, and clicking its tab would close it
  await page.evaluate(
    id => (window as any).jupyterapp.shell.activateById(id),
    SIDEBAR_ID
  );
  const sidebar = page.locator(`#${SIDEBAR_ID}`);
  await expect(
    sidebar.getByText('The active tab is not a notebook')
  ).toBeVisible();
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeDisabled();
});

test('a notebook without PySpark is told so, not shown an error', async ({
  page
}) => {
  await page.notebook.createNew('empty.ipynb');
  await page.notebook.setCell(0, 'code', 'x = 1 + 1');
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  // no cell mentions PySpark: no failure, a notice of what the tool is for
  await expect(sidebar.getByRole('note')).toContainText(
    'This notebook does not use PySpark'
  );
  await expect(sidebar.getByRole('alert')).toHaveCount(0);
  // one click puts a cell that starts Spark at the top, and runs it
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'fix-start-spark.png')
  });
  await sidebar
    .getByRole('button', { name: /^Insert a cell at the top that starts/ })
    .click();
  await expect.poll(() => cellSource(page, 0)).toContain('SparkSession');
  // the inserted cell ran: it has an execution count
  await expect(page.locator('.jp-Cell').first()).toContainText(/\[\d+\]:/, {
    timeout: 2 * 60 * 1000
  });
  await expect(sidebar.getByRole('alert')).toHaveCount(0);
  await expect(sidebar.getByText('does not use PySpark')).toHaveCount(0);
});

test('cells not run yet: one click runs them, and the pipeline can be optimized; a failed cell is said with its fix', async ({
  page
}) => {
  await page.notebook.createNew('not-run.ipynb');
  await page.notebook.setCell(0, 'code', INLINE_CELLS[0]);
  await page.notebook.addCell('code', INLINE_CELLS[1]);
  const sidebar = await openTracingSidebar(page);
  const optimize = sidebar.getByRole('button', { name: 'Optimize pipeline' });
  await optimize.click();
  await expect(sidebar.getByRole('alert')).toContainText(
    'No PySpark DataFrame has been recorded'
  );
  // the notebook starts Spark itself: no cell to insert, only the run
  await expect(
    sidebar.getByRole('button', { name: /^Insert a cell/ })
  ).toHaveCount(0);
  await sidebar.getByRole('button', { name: /^Run all cells/ }).click();
  // the error is being fixed: it goes at once, and the panel says what goes on instead
  await expect(sidebar.getByRole('alert')).toHaveCount(0);
  await expect(sidebar.getByRole('status')).toContainText('Running all cells…');
  await expect(optimize).toBeEnabled({ timeout: 3 * 60 * 1000 });
  await optimize.click();
  await expect(sidebar.locator('.jp-MagicPush-card')).toHaveCount(1, {
    timeout: 3 * 60 * 1000
  });

  // a cell fails on the next run: the panel says which, that the cells after it have not
  // run, offers the run again, and still optimizes what ran before it
  await page.notebook.addCell('code', 'share = 1 / 0');
  await page.notebook.addCell('code', 'late = out.filter(F.col("k") > 3)');
  // as Run All leaves it: the failing cell ran, the one after it did not
  await page.notebook.runCell(2);
  await optimize.click();
  const failed = sidebar.locator('.jp-MagicPush-failedCell');
  await expect(failed.getByRole('alert')).toContainText(
    /^cell \[\d+\] failed \(ZeroDivisionError: division by zero\); the cells after it have not run\.$/,
    { timeout: 3 * 60 * 1000 }
  );
  await expect(
    failed.getByRole('button', { name: /^Run all cells/ })
  ).toBeVisible();
  await expect(sidebar.locator('.jp-MagicPush-card')).toHaveCount(1);
  await expect(
    sidebar.getByRole('status').filter({ hasText: 'No filter can move' })
  ).toHaveCount(0);
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'failed-cell.png')
  });
});

test('tracing unloaded in the kernel: the panel says so and one click turns it on again', async ({
  page
}) => {
  const sidebar = await runInlineNotebook(page, 'unloaded.ipynb');
  const optimize = sidebar.getByRole('button', { name: 'Optimize pipeline' });
  await expect(optimize).toBeEnabled({ timeout: 3 * 60 * 1000 });
  await page.notebook.addCell('code', '%unload_ext magicpush_lab');
  await page.notebook.runCell(2);
  await optimize.click();
  await expect(sidebar.getByRole('alert')).toContainText('Tracing is off');
  await sidebar
    .getByRole('button', { name: /^Load the MagicPush kernel/ })
    .click();
  await expect(sidebar.locator('[data-tracing="on"]')).toBeVisible();
  // tracing is on again, from now: the pipeline must run again to be recorded
  await optimize.click();
  await expect(sidebar.getByRole('alert')).toContainText(
    'No PySpark DataFrame has been recorded'
  );
});

test('optimizing the UDF filter notebook shows a proved, measured pushdown; its diff opens side by side in a tab', async ({
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
  // plain words first, the paper's terms after
  await expect(card.locator('.jp-MagicPush-kind')).toHaveText(
    'replaces the late filter'
  );
  await expect(card.locator('.jp-MagicPush-operator').first()).toHaveText(
    'RowTransform, checked row by row'
  );
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
  // the time saved, from the rows removed and the pipeline's per-row cost on samples; where
  // the runs' own spread hides that cost (a busy machine), no figure, and why
  await expect(card.locator('.jp-MagicPush-timeSaved')).toContainText(
    /^(≈ [\d.]+ (s|min) .*less per run estimate An estimate: the pipeline took [\d.]+ µs more per row on the source's first 50,000 rows than on its first 10,000, times the [\d,]+ rows the filter removes|No time estimate: (the pipeline's time per row could not be told apart from Spark's fixed costs|timing the pipeline on 50,000 rows took over 10 s))/,
    { timeout: 2 * 60 * 1000 }
  );
  // Diff: the read gains the filter, highlighted in the editor theme
  const why = card.getByRole('button', { name: /^Why/ });
  const whyBefore = await why.boundingBox();
  await card.getByRole('button', { name: /^Diff: show/ }).click();
  const added = card.locator('.jp-MagicPush-diff-add').first();
  await expect(added).toContainText('.filter(');
  await expect(added.locator('code span').first()).toBeVisible();
  // the diff fits the panel's default width: long lines wrap, nothing is cut off on the
  // right, and opening it moves no button
  const body = card.locator('.jp-MagicPush-diffBody').first();
  expect(await body.evaluate(el => el.scrollWidth <= el.clientWidth)).toBe(
    true
  );
  expect(await why.boundingBox()).toEqual(whyBefore);
  await expect(
    card.getByRole('button', { name: /^Diff: hide/ })
  ).toHaveAttribute('aria-expanded', 'true');
  await page.sidebar.close('left');
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'sidebar-suggestion.png')
  });
  const readCell = 3;
  const original = await cellSource(page, readCell);

  // Open side by side: a main-area tab, each changed cell as it is (left) and rewritten
  // (right), kept lines opposite each other, each change on its own side only
  await card.getByRole('button', { name: /^Open side by side/ }).click();
  const title = 'Diff: big_earners — filter on orders';
  const tabTitle = page.getByRole('tab', { name: title });
  await expect(tabTitle).toHaveAttribute('aria-selected', 'true');
  const diffTab = page.locator('.jp-MagicPush-sideBySide');
  await expect(diffTab).toBeVisible();
  const left = diffTab.getByRole('region', {
    name: /^As it is: cell \[\d+\]$/
  });
  const right = diffTab.getByRole('region', {
    name: /^Rewritten: cell \[\d+\]$/
  });
  await expect(left).toHaveCount(2); // the read of orders and the late filter's cell
  await expect(right).toHaveCount(2);
  const lateFilter = 'big_earners = scored.filter(F.col("points") > 1000)';
  await expect(
    left
      .locator('.jp-MagicPush-diff-del > code')
      .filter({ hasText: lateFilter })
  ).toHaveCount(1);
  await expect(right.filter({ hasText: lateFilter })).toHaveCount(0);
  const pushed = /^orders = spark\.read\.parquet\(path\)\.filter\(.*amount/;
  await expect(
    right.locator('.jp-MagicPush-diff-add > code').filter({ hasText: pushed })
  ).toHaveCount(1);
  await expect(left.filter({ hasText: /\.filter\(.*amount/ })).toHaveCount(0);
  await expect(
    right.locator('.jp-MagicPush-diff-add code span').first()
  ).toBeVisible();
  // no line wraps: every row is one line tall, and row k of the left column stands
  // opposite row k of the right one (a change's empty slot included)
  const rowTops = await diffTab
    .locator('.jp-MagicPush-sbsColumns')
    .evaluateAll(grids =>
      grids.map(grid =>
        Array.from(grid.querySelectorAll('.jp-MagicPush-sbsLines')).map(lines =>
          Array.from(lines.children).map(row => {
            const box = row.getBoundingClientRect();
            return { top: box.top, height: box.height };
          })
        )
      )
    );
  const rowHeight = rowTops[0][0][0].height;
  for (const [before, after] of rowTops) {
    expect(before.map(r => r.top)).toEqual(after.map(r => r.top));
    expect([...before, ...after].every(r => r.height === rowHeight)).toBe(true);
  }
  // the tab at the width it gets without the panel
  await page.sidebar.close('right');
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'side-by-side.png')
  });
  await page.evaluate(
    id => (window as any).jupyterapp.shell.activateById(id),
    SIDEBAR_ID
  );

  // Opening it again (from the keyboard) brings the same tab to the front, no second one.
  await page.notebook.activate(NOTEBOOK);
  await expect(diffTab).toBeHidden();
  await focusSteadily(
    page,
    card.getByRole('button', { name: /^Open side by side/ })
  );
  await page.keyboard.press('Enter');
  await expect(tabTitle).toHaveCount(1);
  await expect(tabTitle).toHaveAttribute('aria-selected', 'true');

  // The tab's Apply is the card's: it rewrites the cell that reads `orders`, and both
  // then say so, disabled, in the same words. Undo in that cell restores it.
  await diffTab.getByRole('button', { name: /^Apply/ }).click();
  const appliedInTab = diffTab.getByRole('button', { name: /^Applied/ });
  await expect(appliedInTab).toBeDisabled();
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  await expect(appliedInTab).toHaveAccessibleName(
    (await card
      .getByRole('button', { name: /^Applied/ })
      .getAttribute('aria-label')) as string
  );
  await page.notebook.activate(NOTEBOOK);
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
  // the row counts land in the cards when counting ends: click what will stay put
  await countingDone(sidebar);

  // Both filters rewrite cell 1: applying one, then the other, is refused with a way out.
  await cards
    .nth(0)
    .getByRole('button', { name: /^Apply/ })
    .click();
  await expect(
    cards.nth(0).getByRole('button', { name: /^Applied/ })
  ).toBeDisabled();
  await cards
    .nth(1)
    .getByRole('button', { name: /^Apply/ })
    .click();
  await expect(cards.nth(1).getByRole('alert')).toContainText('Apply all');
  await page.notebook.enterCellEditingMode(0);
  await page.keyboard.press('Control+z');
  await expect.poll(() => cellSource(page, 0)).toEqual(JOIN_CELLS[0]);

  // A fresh result: Apply all puts both filters into the cell that reads a and b, here
  // from the joint rewrite's side-by-side tab, which applies as its card does.
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(together).toBeVisible({ timeout: 3 * 60 * 1000 });
  await together.getByRole('button', { name: /^Diff: show/ }).click();
  await together.getByRole('button', { name: /^Open side by side/ }).click();
  const jointTab = page.getByRole('tab', { name: 'Diff: out — all 2 filters' });
  await expect(jointTab).toHaveAttribute('aria-selected', 'true');
  await page
    .locator('.jp-MagicPush-sideBySide')
    .getByRole('button', { name: /^Apply all/ })
    .click();
  await expect(
    together.getByRole('button', { name: /^Applied/ })
  ).toBeDisabled();
  await page.notebook.activate('join.ipynb');
  const rewritten = await cellSource(page, 0);
  expect(rewritten.split('.filter(').length - 1).toBe(2);

  // Run the rewritten cells and optimize again: nothing is offered twice. The panel says the
  // filters are in place and keeps their Undo, which takes them out while the cells hold them.
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(
    sidebar.getByRole('status').filter({ hasText: 'Already applied' })
  ).toBeVisible({ timeout: 3 * 60 * 1000 });
  await expect(cards).toHaveCount(0);
  await expect(together).toHaveCount(0);
  // the joint rewrite is no longer offered: its tab closed with the old result
  await expect(jointTab).toHaveCount(0);
  const inPlace = sidebar.getByRole('region', { name: 'Already applied' });
  await expect(inPlace).toContainText('filters of pipeline out');
  await expect(sidebar.locator('.jp-MagicPush-notes')).toContainText(
    'already in place'
  );
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'already-applied.png')
  });
  await inPlace.getByRole('button', { name: /^Undo/ }).click();
  await expect.poll(() => cellSource(page, 0)).toEqual(JOIN_CELLS[0]);
  await expect(inPlace).toHaveCount(0);
});

test('%magicpush apply 1 rewrites the cells from the kernel side, once, and the panel shows it applied', async ({
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
  const sidebar = await openTracingSidebar(page);
  for (const i of [0, 1, 2]) {
    await page.notebook.runCell(i);
  }
  // the sidebar's result too: once the kernel side applies it, its card says so
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card.getByRole('button', { name: /^Apply:/ })).toBeEnabled({
    timeout: 3 * 60 * 1000
  });
  await countingDone(sidebar);
  await page.notebook.runCell(3);

  const output = page.locator('.jp-MagicPush-applyResult');
  await expect(output).toContainText('Applied suggestion 1', {
    timeout: 3 * 60 * 1000
  });
  expect(await cellSource(page, 0)).toContain('.filter(');
  expect(await cellSource(page, 1)).not.toContain('.filter(');
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  await expect(card.getByRole('button', { name: /^Undo/ })).toBeVisible();

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
  // the panel says what it waits for
  const cancel = sidebar.getByRole('button', {
    name: /^Cancel: Waiting for the kernel's running cell/
  });
  await expect(cancel).toBeVisible();
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'cancel.png')
  });
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
      'out = b.withColumn("y", F.col("x") * 2).filter(F.col("y") > 8)\n' +
      // proved too, but every x is at least 0: it removes no rows
      'pos = b.withColumn("w", F.col("x") + 1).filter(F.col("w") > 0)\n' +
      // the key's conjunct moves; the count's stays, and the panel says where it stopped
      'agg = b.groupBy("x").agg(F.count("*").alias("n")).filter((F.col("x") > 1) & (F.col("n") > 3))'
  );
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('checkbox').check(); // every pipeline
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();

  const cards = sidebar.locator('.jp-MagicPush-card');
  await expect(cards).toHaveCount(3, { timeout: 3 * 60 * 1000 });
  // counted, the cards are shown most rows removed first: the filter worth nothing last, said
  await countingDone(sidebar);
  const card = cards.first();
  await expect(card.locator('.jp-MagicPush-noBenefit')).toHaveCount(0);
  await expect(cards.last().locator('.jp-MagicPush-noBenefit')).toContainText(
    'No benefit'
  );
  await card.getByRole('button', { name: /^Why: show/ }).click();
  // first the predicate's relation to the late filter, in the user's column names
  await expect(card.locator('.jp-MagicPush-relation')).toHaveText(
    /^y > 8 holds exactly when \(?x \* 2\)? > 8 does, for every row of b: /
  );
  // then the proof, plain words first and the paper's category as a detail
  await expect(card.locator('.jp-MagicPush-why')).toContainText(
    'RowTransform, checked row by row: RowTransform keeps, drops or changes each row on its own'
  );
  await expect(card.locator('.jp-MagicPush-why')).toContainText(
    '(proof category ROW-TO-ROW, base case 1 row)'
  );

  // the pipelines as graphs: where the filter is, where it goes, barriers on hover
  // what stayed in a late filter while the rest moved: its step, cell and line
  await expect(
    sidebar.getByRole('region', { name: 'Stays in the late filter' })
  ).toContainText(
    /F\.col\("n"\) > 3 stays in the late filter: GroupBy .*groupBy.*\(cell \[\d+\], line 4\)/
  );
  const graphs = sidebar.locator('.jp-MagicPush-graph');
  await expect(graphs).toHaveCount(4);
  const out = graphs.filter({ hasText: 'out' });
  await expect(out.locator('.jp-MagicPush-graphNode-target')).toHaveCount(1);
  await expect(out.locator('.jp-MagicPush-graphNode-late')).toHaveCount(1);
  // each call says its own step, not every reading of its method
  await expect(
    graphs.filter({ hasText: 'top' }).locator('title', { hasText: /^limit/ })
  ).toContainText('): TopK');

  const whyNot = sidebar.getByRole('region', { name: 'Why not further' });
  await expect(whyNot).toContainText('TopK');
  await expect(whyNot).toContainText('would change the result on these rows');
  await expect(whyNot.locator('table tbody tr').first()).toBeVisible();
  // the step that stopped it, marked in its graph, and its reason said once
  await expect(
    graphs
      .filter({ hasText: 'top' })
      .locator('.jp-MagicPush-graphNode-blocked title')
  ).toContainText('the filter stops here');
  await expect(sidebar.locator('.jp-MagicPush-refusal')).toHaveCount(1);
  await expect(
    sidebar.locator('.jp-MagicPush-notes', { hasText: 'TopK' })
  ).toHaveCount(0);
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'sidebar-why-not.png')
  });
});

test('nothing pushed: the blocking step is said once, specific, and marked in the graph', async ({
  page
}) => {
  await page.notebook.createNew('nothing.ipynb');
  await page.notebook.setCell(0, 'code', JOIN_CELLS[0]);
  await page.notebook.addCell(
    'code',
    'top = a.orderBy("v").limit(3).filter(F.col("k") > 5)'
  );
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(sidebar.locator('.jp-MagicPush-empty')).toContainText(
    'No filter can move to a source of this pipeline; the step that stops it is marked in the graph',
    { timeout: 3 * 60 * 1000 }
  );
  const whyNot = sidebar.getByRole('region', { name: 'Why nothing moved' });
  // the operator, its code and its cell as the prompt shows it, with the rows that refute it
  await expect(whyNot.locator('.jp-MagicPush-refusal p').first()).toHaveText(
    /^TopK a\.orderBy\("v"\)\.limit\(3\) \(cell \[2\], line 1\): no filter before this step was proved to give the same result/
  );
  await expect(
    whyNot.locator('.jp-MagicPush-refusal p code').first()
  ).toHaveText('a.orderBy("v").limit(3)');
  await expect(whyNot.locator('table tbody tr').first()).toBeVisible();
  // said once: no note repeats it, and no generic sentence stands in for it
  await expect(sidebar.locator('.jp-MagicPush-refusal')).toHaveCount(1);
  await expect(
    sidebar.locator('.jp-MagicPush-notes', { hasText: 'TopK' })
  ).toHaveCount(0);
  await expect(whyNot).toContainText(
    'no filter before this step was proved to give the same result'
  );
  const blocked = sidebar.locator('.jp-MagicPush-graphNode-blocked');
  await expect(blocked).toHaveCount(1);
  await expect(blocked.locator('title')).toContainText('limit');
  // the cell in the reason is a link to the cell
  await page.notebook.selectCells(0);
  await whyNot.getByRole('button', { name: 'Go to cell [2]' }).click();
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          (window as any).jupyterapp.shell.currentWidget.content
            .activeCellIndex as number
      )
    )
    .toBe(1);
  await sidebar.screenshot({
    path: path.resolve(
      __dirname,
      '..',
      'screenshots',
      'sidebar-why-nothing.png'
    )
  });
});

const INLINE_CELLS = [
  JOIN_CELLS[0],
  'out = a.withColumn("w", F.col("v") * 3).filter(F.col("w") > 20)'
];

/** A notebook of INLINE_CELLS, run once the kernel traces: its late filter is in cell 1. */
async function runInlineNotebook(page: IJupyterLabPageFixture, name: string) {
  await page.notebook.createNew(name);
  await page.notebook.setCell(0, 'code', INLINE_CELLS[0]);
  await page.notebook.addCell('code', INLINE_CELLS[1]);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  return sidebar;
}

/**
 * The counted rows of the first suggestion kept in the workspace for a notebook whose path
 * ends in `name`, or null while none is kept (read through the page, so Galata's mocked
 * workspace answers).
 */
async function storedRowsAfter(
  page: IJupyterLabPageFixture,
  name: string
): Promise<number | null> {
  return page.evaluate(async name => {
    const reply = await fetch('/lab/api/workspaces');
    const listed = await reply.json();
    const workspaces: any[] = listed?.workspaces?.values ?? [];
    for (const workspace of workspaces) {
      for (const [key, value] of Object.entries<any>(workspace.data ?? {})) {
        if (
          key.startsWith('magicpush-lab:last-result:') &&
          key.endsWith(name)
        ) {
          return value?.result?.suggestions?.[0]?.rows_after ?? null;
        }
      }
    }
    return null;
  }, name);
}

function bannerOf(page: IJupyterLabPageFixture, cell: number) {
  return page
    .locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')
    .nth(cell)
    .locator('.jp-MagicPush-banner');
}

test('inline banner: shown under the late filter after its cell runs; diff, why, apply, undo, and an undo refused after an edit', async ({
  page
}) => {
  await runInlineNotebook(page, 'inline.ipynb');
  const banner = bannerOf(page, 1);
  await expect(banner).toContainText('This filter can move to a', {
    timeout: 3 * 60 * 1000
  });
  // 50 rows: too few to estimate the time saved, so the banner gives the rows alone
  await expect(banner).toContainText(/\(−\d+\.\d% rows\)/, {
    timeout: 2 * 60 * 1000
  });
  await expect(bannerOf(page, 0)).toHaveCount(0);

  await banner.getByRole('button', { name: /^Diff: show/ }).click();
  await expect(banner.locator('.jp-MagicPush-diff-add').first()).toContainText(
    '.filter('
  );
  // the late filter's line, highlighted in the editor theme and shown once
  const removed = banner.locator('.jp-MagicPush-diff-del code').last();
  await expect(removed.locator('span').first()).toBeAttached();
  await expect(removed).toHaveText(INLINE_CELLS[1]);
  await banner.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'inline-diff.png')
  });
  await banner.getByRole('button', { name: /^Why: show/ }).click();
  await expect(banner.locator('.jp-MagicPush-why')).toContainText(
    'keeps, drops or changes each row on its own'
  );
  await page.sidebar.close('right');
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'inline-banner.png')
  });
  // Escape folds the open panel away, from the keyboard
  await banner.getByRole('button', { name: /^Why: hide/ }).focus();
  await page.keyboard.press('Escape');
  await expect(banner.locator('.jp-MagicPush-why')).toHaveCount(0);

  await banner.getByRole('button', { name: /^Apply/ }).click();
  await expect(banner).toContainText(
    'Applied: the cells now filter a at the source'
  );
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'inline-applied.png')
  });
  expect(await cellSource(page, 0)).toContain('.filter(');
  expect(await cellSource(page, 1)).not.toContain('.filter(');

  // Undo suggestion restores every rewritten cell at once
  await banner.getByRole('button', { name: /^Undo suggestion/ }).click();
  await expect.poll(() => cellSource(page, 0)).toEqual(INLINE_CELLS[0]);
  await expect.poll(() => cellSource(page, 1)).toEqual(INLINE_CELLS[1]);
  await expect(banner.getByRole('button', { name: /^Apply/ })).toBeVisible();

  // applied again, then a rewritten cell edited: Undo refuses and changes nothing
  await banner.getByRole('button', { name: /^Apply/ }).click();
  await expect(banner).toContainText('Applied');
  const edited = (await cellSource(page, 0)) + '\n# my edit';
  await page.evaluate(source => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    panel.content.model.cells.get(0).sharedModel.setSource(source);
  }, edited);
  await banner.getByRole('button', { name: /^Undo suggestion/ }).click();
  await expect(banner.getByRole('alert')).toContainText('changed since');
  expect(await cellSource(page, 0)).toEqual(edited);
});

test('cells are named as their prompts show them, and the names link to the cells', async ({
  page
}) => {
  // a markdown cell first: notebook positions (2, 3) and prompts ([1], [2]) differ
  await page.notebook.createNew('prompts.ipynb');
  await page.notebook.setCell(0, 'markdown', '# Orders above 20');
  await page.notebook.addCell('code', INLINE_CELLS[0]);
  await page.notebook.addCell('code', INLINE_CELLS[1]);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  await expect(card.locator('.jp-MagicPush-cardFooter')).toContainText(
    'cells [1] and [2]'
  );
  await expect(
    card.getByRole('button', { name: 'Apply: rewrite cells [1] and [2]' })
  ).toBeVisible();
  await card.getByRole('button', { name: /^Diff: show/ }).click();
  await expect(
    card.getByRole('region', { name: 'Changes to cell [1]' })
  ).toBeVisible();
  await sidebar.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'cell-links.png')
  });

  // a name is a link: it selects its cell and scrolls it into view
  const activeIndex = () =>
    page.evaluate(
      () =>
        (window as any).jupyterapp.shell.currentWidget.content
          .activeCellIndex as number
    );
  await page.notebook.selectCells(0);
  await card
    .locator('.jp-MagicPush-cardFooter')
    .getByRole('button', { name: 'Go to cell [2]' })
    .click();
  await expect.poll(activeIndex).toBe(2);
  await card
    .locator('.jp-MagicPush-cardFooter')
    .getByRole('button', { name: 'Go to cell [1]' })
    .click();
  await expect.poll(activeIndex).toBe(1);
  await expect(
    page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell').nth(1)
  ).toBeInViewport();

  // a re-run renumbers the prompts, and the names follow them
  await page.notebook.runCell(1);
  await expect(card.locator('.jp-MagicPush-cardFooter')).toContainText(
    'cells [3] and [2]'
  );
});

test('after Apply, the banner says the kernel still holds the old DataFrames and re-runs the cells on request', async ({
  page
}) => {
  await runInlineNotebook(page, 'rerun.ipynb');
  const banner = bannerOf(page, 1);
  await expect(banner).toContainText('This filter can move to a', {
    timeout: 3 * 60 * 1000
  });
  await banner.getByRole('button', { name: /^Apply/ }).click();
  await expect(banner).toContainText(
    'The kernel still holds the DataFrames made before the rewrite'
  );
  await page.sidebar.close('left');
  await banner.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'inline-rerun.png')
  });
  // a cell after the pipeline reads the kernel's `a`: the re-run runs it too
  await page.notebook.addCell('code', 'print("rows of a:", a.count())');
  await banner
    .getByRole('button', { name: /^Re-run the affected cells/ })
    .click();
  // v = i % 10 and the filter v * 3 > 20 at the source keep v in 7..9: 15 of 50 rows
  await expect(
    page
      .locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')
      .nth(2)
      // its printed line; Spark's progress on stderr may come before or after it
      .locator(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]'
      )
  ).toContainText('rows of a: 15', { timeout: 2 * 60 * 1000 });
});

test('a notebook keeps its own result: another tab shows none, and coming back shows it again', async ({
  page
}) => {
  const sidebar = await runInlineNotebook(page, 'first.ipynb');
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });

  // another tab in view: no card of the notebook, whose Apply would act out of view
  await page.evaluate(async () => {
    await (window as any).jupyterapp.commands.execute('launcher:create');
  });
  await expect(sidebar.locator('.jp-MagicPush-card')).toHaveCount(0);

  // back to the first: its result, counted meanwhile if it was still counting
  await page.notebook.activate('first.ipynb');
  await expect(card).toBeVisible();
  await expect(card.getByRole('button', { name: /^Apply/ })).toBeEnabled();
  await expect(card.locator('.jp-MagicPush-rows')).toContainText('rows: 50 →', {
    timeout: 2 * 60 * 1000
  });
});

test('after a page reload the banners come back from the last result, while the cells hold its code; a dismissed one stays dismissed', async ({
  page
}) => {
  const sidebar = await runInlineNotebook(page, 'restored.ipynb');
  const banner = bannerOf(page, 1);
  await expect(banner).toContainText(
    /This filter can move to a \(−\d+\.\d% rows\)/,
    {
      timeout: 3 * 60 * 1000
    }
  );
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeEnabled();
  await page.notebook.save();
  // JupyterLab writes the workspace a moment after the state database changes: reload
  // only once it holds the counted result, as a user reloading seconds later would find
  await expect
    .poll(() => storedRowsAfter(page, 'restored.ipynb'), {
      timeout: 30 * 1000
    })
    .not.toBeNull();

  // the restored workspace opens the notebook itself, so the app's default readiness
  // check (a Launcher) does not apply
  await page.reload({ waitForIsReady: false });
  await expect(page.locator('.jp-NotebookPanel .jp-Cell').nth(1)).toBeVisible({
    timeout: 60 * 1000
  });
  // no run and no click: the banner, with its counted rows, is back under its cell
  await expect(bannerOf(page, 1)).toContainText(
    /This filter can move to a \(−\d+\.\d% rows\)/,
    { timeout: 30 * 1000 }
  );
  await expect(bannerOf(page, 0)).toHaveCount(0);
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'inline-restored.png')
  });

  // dismissed, the banner stays away after the next reload; the sidebar still lists it
  await bannerOf(page, 1)
    .getByRole('button', { name: /^Dismiss/ })
    .click();
  await expect(bannerOf(page, 1)).toHaveCount(0);
  await page.notebook.save();
  await page.reload({ waitForIsReady: false });
  await expect(page.locator('.jp-NotebookPanel .jp-Cell').nth(1)).toBeVisible({
    timeout: 60 * 1000
  });
  await page.notebook.activate('restored.ipynb');
  const reloaded = await openTracingSidebar(page);
  await page.notebook.run();
  await reloaded.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(reloaded.locator('.jp-MagicPush-card')).toHaveCount(1, {
    timeout: 3 * 60 * 1000
  });
  await expect(
    reloaded.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeEnabled({
    timeout: 3 * 60 * 1000
  });
  // the dismissal was read back from the saved cell metadata
  const dismissed = await page.evaluate(() => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return panel.content.model.cells.get(1).getMetadata('magicpush').dismissed;
  });
  expect(dismissed).toEqual([expect.stringMatching(/^a: /)]);
  await expect(bannerOf(page, 1)).toHaveCount(0);

  // once the late filter's cell holds other code, the next reload brings no result back
  await page.notebook.setCell(
    1,
    'code',
    'out = a.withColumn("w", F.col("v") * 3).filter(F.col("w") > 24)'
  );
  await page.notebook.save();
  await page.reload({ waitForIsReady: false });
  await expect(page.locator('.jp-NotebookPanel .jp-Cell').nth(1)).toBeVisible({
    timeout: 60 * 1000
  });
  // by the time the kernel traces again, a restored result would show in the panel
  const again = await openTracingSidebar(page);
  await expect(
    again.getByText("Run the notebook's PySpark pipeline")
  ).toBeVisible();
  await expect(
    page.locator('.jp-NotebookPanel .jp-MagicPush-banner')
  ).toHaveCount(0);
});

test("settings: with inline suggestions off a run shows no banner; on again, it does, in the dark theme's colours", async ({
  page
}) => {
  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('settingeditor:open', {
      query: 'MagicPush'
    })
  );
  const inline = page.getByRole('checkbox', {
    name: /Show inline suggestions/
  });
  await expect(inline).toBeChecked({ timeout: 30 * 1000 });
  await inline.uncheck();
  await expect(inline).not.toBeChecked();
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'settings.png')
  });

  const sidebar = await runInlineNotebook(page, 'settings.ipynb');
  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  await expect(sidebar.locator('.jp-MagicPush-card')).toHaveCount(1, {
    timeout: 3 * 60 * 1000
  });
  await expect(bannerOf(page, 1)).toHaveCount(0);

  await page.evaluate(() =>
    (window as any).jupyterapp.commands.execute('settingeditor:open', {
      query: 'MagicPush'
    })
  );
  await inline.check();
  await page.activity.activateTab('settings.ipynb');
  await page.notebook.runCell(1);
  await expect(bannerOf(page, 1)).toContainText('This filter can move to a', {
    timeout: 3 * 60 * 1000
  });

  // dark theme: the banner and the panel take their colours from the theme
  await page.theme.setDarkTheme();
  const banner = bannerOf(page, 1);
  await expect(banner).toContainText('This filter can move to a');
  await expect(sidebar.locator('.jp-MagicPush-card')).toHaveCount(1);
  // the banner's background is the theme's layout colour, not a fixed light one
  const [background, themed] = await banner.evaluate(node => [
    getComputedStyle(node).backgroundColor,
    getComputedStyle(document.body)
      .getPropertyValue('--jp-layout-color1')
      .trim()
  ]);
  const probe = await page.evaluate(colour => {
    const el = document.createElement('div');
    el.style.backgroundColor = colour;
    document.body.appendChild(el);
    const resolved = getComputedStyle(el).backgroundColor;
    el.remove();
    return resolved;
  }, themed);
  expect(background).toEqual(probe);
  expect(background).not.toEqual('rgb(255, 255, 255)');
  await page.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'dark-theme.png')
  });
});

test('keyboard only: the shortcut optimizes, Tab and Enter apply and undo, Escape cancels, in the panel and in the notebook', async ({
  page
}) => {
  await page.notebook.createNew('keys.ipynb');
  await page.notebook.setCell(0, 'code', INLINE_CELLS[0]);
  await page.notebook.addCell('code', INLINE_CELLS[1]);
  await openTracingSidebar(page);
  await page.notebook.run();
  const sidebar = page.locator(`#${SIDEBAR_ID}`);
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeEnabled({
    timeout: 3 * 60 * 1000
  });

  await page.notebook.selectCells(1);
  await page.keyboard.press('Control+Alt+p');
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  await expect(
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  ).toBeEnabled({
    timeout: 3 * 60 * 1000
  });

  // every control of the panel has an accessible name, read in one pass: the panel
  // re-renders (counting's Cancel goes) between one button and the next otherwise
  await countingDone(sidebar);
  const unnamed = await sidebar
    .getByRole('button')
    .evaluateAll(buttons =>
      buttons
        .filter(
          b => !(b.getAttribute('aria-label') ?? b.textContent ?? '').trim()
        )
        .map(b => b.outerHTML)
    );
  expect(unnamed).toEqual([]);

  /** Press Tab until the focused element's accessible name starts with `prefix`. */
  const tabTo = async (prefix: string) => {
    await focusSteadily(
      page,
      sidebar.getByRole('button', { name: 'Optimize pipeline' })
    );
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(
        () => document.activeElement?.getAttribute('aria-label') ?? ''
      );
      if (label.startsWith(prefix)) {
        return;
      }
    }
    throw new Error(`no control named "${prefix}…" in the Tab order`);
  };
  await tabTo('Apply: rewrite');
  await page.keyboard.press('Enter');
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  expect(await cellSource(page, 0)).toContain('.filter(');
  await tabTo('Undo suggestion');
  await page.keyboard.press('Enter');
  await expect.poll(() => cellSource(page, 0)).toEqual(INLINE_CELLS[0]);

  // Measure run time from the keyboard: the focus goes to its Cancel, Escape stops the
  // timing, and the focus comes back to Measure run time
  await tabTo('Measure run time');
  await page.keyboard.press('Enter');
  const cancelTiming = card.getByRole('button', { name: /^Cancel timing/ });
  await expect(cancelTiming).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(card.getByText('Timing was cancelled')).toBeVisible();
  const measureRunTime = card.getByRole('button', {
    name: /^Measure run time/
  });
  await expect(measureRunTime).toBeFocused();
  // Escape in the notebook (command mode) stops it too
  await measureRunTime.click();
  await expect(cancelTiming).toBeVisible();
  await page.notebook.selectCells(1);
  await page.keyboard.press('Escape');
  await expect(card.getByText('Timing was cancelled')).toBeVisible();
  await expect(cancelTiming).toHaveCount(0);

  // Escape stops a run that waits for a busy kernel
  await page.notebook.addCell('code', 'import time\ntime.sleep(90)');
  // in place (Ctrl+Enter): Shift+Enter on the last cell adds a cell and puts it in edit
  // mode a moment later, which takes the focus this test gives the panel
  await page.notebook.runCell(2, { wait: false, inplace: true });
  await focusSteadily(
    page,
    sidebar.getByRole('button', { name: 'Optimize pipeline' })
  );
  await page.keyboard.press('Enter');
  // Optimize is disabled while the run goes on: focus moves to Cancel, then back
  await expect(
    sidebar.getByRole('button', {
      name: /^Cancel: (Reading trace|Waiting for the kernel)/
    })
  ).toBeFocused();
  await page.keyboard.press('Escape');
  const optimize = sidebar.getByRole('button', { name: 'Optimize pipeline' });
  await expect(optimize).toBeEnabled();
  await expect(optimize).toBeFocused();
});

test.describe('windowed notebook rendering', () => {
  // 'full' attaches only the cells in view: the hardest case for a widget inside a cell
  test.use({
    mockSettings: {
      ...galata.DEFAULT_SETTINGS,
      '@jupyterlab/notebook-extension:tracker': {
        ...galata.DEFAULT_SETTINGS['@jupyterlab/notebook-extension:tracker'],
        windowingMode: 'full'
      }
    }
  });

  test('the banner of a cell far below the view is there when the cell scrolls in, and stays', async ({
    page,
    tmpPath
  }) => {
    // tall cells, so that the last one starts several screens below the first; the notebook
    // is written as a file, since typing 240 lines into cells took over a minute
    const filler = Array.from({ length: 30 }, (_, i) =>
      Array.from({ length: 8 }, (_, j) => `n${i}_${j} = ${j}`).join('\n')
    );
    const cells = [INLINE_CELLS[0], ...filler, INLINE_CELLS[1]].map(source => ({
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source
    }));
    const notebook = {
      cells,
      metadata: {
        kernelspec: {
          display_name: 'Python 3 (ipykernel)',
          language: 'python',
          name: 'python3'
        }
      },
      nbformat: 4,
      nbformat_minor: 5
    };
    await page.contents.uploadContent(
      JSON.stringify(notebook),
      'text',
      `${tmpPath}/long.ipynb`
    );
    await page.notebook.openByPath(`${tmpPath}/long.ipynb`);
    await page.notebook.activate('long.ipynb');
    const last = filler.length + 1;
    await openTracingSidebar(page);
    await page.notebook.run();

    await page.notebook.selectCells(0);
    await page.notebook.selectCells(last);
    const banner = bannerOf(page, last);
    await expect(banner).toContainText('This filter can move to a', {
      timeout: 3 * 60 * 1000
    });
    // away and back: the windowed notebook detaches the cell and attaches it again
    const scrollTo = (cell: number) =>
      page.evaluate(async i => {
        const panel = (window as any).jupyterapp.shell.currentWidget;
        await panel.content.scrollToItem(i, 'start');
      }, cell);
    // code cells out of view are hidden (display: none) rather than removed
    const attached = (cell: number) =>
      page.evaluate(i => {
        const panel = (window as any).jupyterapp.shell.currentWidget;
        return panel.content.widgets[i].inViewport as boolean;
      }, cell);
    await page.notebook.selectCells(0); // the active cell is never detached
    await scrollTo(0);
    await expect.poll(() => attached(last)).toBe(false);
    await scrollTo(last);
    await expect.poll(() => attached(last)).toBe(true);
    await expect(banner).toBeVisible();
    await expect(banner).toHaveCount(1);
  });
});

// A source of 10**12 rows: counting it, or running the pipeline over it, takes many minutes,
// so a kernel that answers seconds after Cancel proves the Spark job was stopped.
const HUGE_CELLS = [
  'from pyspark.sql import SparkSession, functions as F\n' +
    'spark = SparkSession.builder.master("local[2]").getOrCreate()\n' +
    'df = spark.range(0, 10**12).selectExpr("id AS k", "CAST(id % 1000 AS INT) AS v")',
  // a lambda: the editor would indent a def's following lines as it types them
  'bump = F.udf(lambda v: v + 5, "int")\n' +
    'late = df.withColumn("s", bump(F.col("v"))).filter(F.col("s") > 1000)'
];

// Run in a new cell: Spark's running jobs, and whether one was cancelled (Spark says FAILED).
// Spark's status tracker learns of a job's end from its listener bus, which lags on a busy
// machine: the cell asks again for up to SECONDS before it prints.
const JOBS_CELL =
  'import time\n' +
  't = spark.sparkContext.statusTracker()\n' +
  // one line, no block: the editor indents a block's lines as it types them
  '_ = [time.sleep(0.25) for _ in range(SECONDS * 4) if t.getActiveJobsIds()]\n' +
  'print("active:", t.getActiveJobsIds(), "states:", sorted({t.getJobInfo(j).status for j in range(100) if t.getJobInfo(j)}))';

/** Run JOBS_CELL as a new last cell; the kernel must answer within `seconds`. */
async function expectJobsStopped(
  page: IJupyterLabPageFixture,
  seconds: number
) {
  await page.notebook.addCell(
    'code',
    JOBS_CELL.replace('SECONDS', String(seconds))
  );
  const index = (await page.notebook.getCellCount()) - 1;
  await page.notebook.runCell(index, { wait: false });
  const output = page
    .locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')
    .nth(index)
    // the printed lines; Spark may log to stderr beside them
    .locator(
      '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]'
    );
  await expect(output).toContainText('active: []', {
    timeout: (seconds + 10) * 1000
  });
  await expect(output).toContainText('FAILED');
}

test('cancel interrupts the kernel: row counting and timing stop their Spark jobs', async ({
  page
}) => {
  await page.notebook.createNew('huge.ipynb');
  await page.notebook.setCell(0, 'code', HUGE_CELLS[0]);
  await page.notebook.addCell('code', HUGE_CELLS[1]);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();

  // the filter's cell ran: inline suggestions optimize, then count rows
  const counting = sidebar.getByRole('button', {
    name: /^Cancel: Counting rows/
  });
  await expect(counting).toBeVisible({ timeout: 3 * 60 * 1000 });
  await page.waitForTimeout(3000); // the count's Spark job is running
  await counting.click();
  await expect(sidebar.getByText(/^Row counting was cancelled/)).toBeVisible();
  await expectJobsStopped(page, 20);

  const card = sidebar.locator('.jp-MagicPush-card').first();
  await card.getByRole('button', { name: /^Measure run time/ }).click();
  const cancelTiming = card.getByRole('button', { name: /^Cancel timing/ });
  await expect(cancelTiming).toBeVisible();
  // progress: the seconds since the timing started
  await expect(
    card.locator('.jp-MagicPush-runtimeProgress [role="status"]')
  ).toContainText(/kernel… \d+ s/, { timeout: 30 * 1000 });
  await page.sidebar.close('left');
  await card.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'cancel-timing.png')
  });
  await cancelTiming.click();
  await expect(card).toContainText('Timing was cancelled');
  await expect(
    card.getByRole('button', { name: /^Measure run time/ })
  ).toBeEnabled();
  await expectJobsStopped(page, 20);
});

test('measure run time: the pipeline runs as written and rewritten on the live session, outputs compared', async ({
  page
}) => {
  // the run of the filter's cell optimizes on its own (inline suggestions are on)
  const sidebar = await runInlineNotebook(page, 'runtime.ipynb');
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card.locator('.jp-MagicPush-rows')).toContainText('rows: 50 →', {
    timeout: 3 * 60 * 1000
  });
  const before = [await cellSource(page, 0), await cellSource(page, 1)];

  await card.getByRole('button', { name: /^Measure run time/ }).click();
  const times = card.locator('.jp-MagicPush-runtime');
  // two significant digits: "0.13 s", "0.099 s", "1.2 s"
  await expect(times).toContainText(
    /median of 3 runs: \d+(\.\d+)? s → \d+(\.\d+)? s/,
    {
      timeout: 2 * 60 * 1000
    }
  );
  await expect(times).toContainText(
    /Both outputs hold the same [\d,]+ rows, each as often, in any order \(equal as bags\)/
  );
  await expect(times.getByRole('img', { name: /^original: / })).toBeVisible();
  // one story of the time: once measured, the estimate of the time saved gives way
  await expect(card.locator('.jp-MagicPush-timeSaved')).toHaveCount(0);
  // timing re-runs the traced calls in the kernel; the notebook's cells are untouched
  expect([await cellSource(page, 0), await cellSource(page, 1)]).toEqual(
    before
  );
  await page.sidebar.close('left');
  await card.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'sidebar-run-time.png')
  });
});
