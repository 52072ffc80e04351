import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as path from 'path';
import { cellSource, openTracingSidebar } from './notebook';

/**
 * A notebook whose one finding is a fold: a loop of 120 withColumn calls (the fold needs 100
 * or more), then a cell that prints the columns and a digest of the rows as a bag (sorted),
 * so the output before and after the rewrite can be compared as text.
 */
const CELLS = [
  'from pyspark.sql import SparkSession, functions as F\n' +
    'import hashlib\n' +
    'spark = SparkSession.builder.master("local[1]").getOrCreate()',
  'df = spark.range(5)\n' +
    'for i in range(120):\n' +
    '    df = df.withColumn(f"c{i}", F.col("id") + i)',
  'rows = sorted(tuple(r) for r in df.collect())\n' +
    'print(len(df.columns), len(rows), hashlib.sha256(repr((df.columns, rows)).encode()).hexdigest()[:16])'
];
const LOOP_CELL = 1;
const COUNT_CELL = 2;

// Spark starts in the kernel; the rest is five rows.
test.setTimeout(5 * 60 * 1000);
test.use({ viewport: { width: 1280, height: 800 } });

/** The count a code cell's prompt shows (0 before it ran). */
async function executionCount(
  page: IJupyterLabPageFixture,
  index: number
): Promise<number> {
  return page.evaluate(i => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    return (panel.content.model.cells.get(i).executionCount ?? 0) as number;
  }, index);
}

/** The text a cell printed (Spark's warnings and progress bar go to stderr, left out). */
async function cellOutput(
  page: IJupyterLabPageFixture,
  index: number
): Promise<string> {
  return page.evaluate(i => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    const outputs = panel.content.model.cells.get(i).outputs;
    const texts: string[] = [];
    for (let k = 0; k < outputs.length; k++) {
      const data = outputs.get(k).toJSON();
      if (data.output_type === 'stream' && data.name === 'stdout') {
        texts.push(String(data.text));
      }
    }
    return texts.join('');
  }, index);
}

test('a withColumn chain of 120 calls: the fold card says why, applies as withColumns, and the notebook gives the same columns and rows', async ({
  page
}) => {
  await page.notebook.createNew('fold.ipynb');
  await page.notebook.setCell(0, 'code', '');
  await page.notebook.addCell('code', '');
  await page.notebook.addCell('code', '');
  // through the model, not typed: the editor would indent the loop's body once more
  await page.evaluate(cells => {
    const panel = (window as any).jupyterapp.shell.currentWidget;
    cells.forEach((code, i) =>
      panel.content.model.cells.get(i).sharedModel.setSource(code)
    );
  }, CELLS);
  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();
  const before = await cellOutput(page, COUNT_CELL);
  expect(before).toMatch(/^121 5 [0-9a-f]{16}\s*$/);

  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  const card = sidebar.getByRole('article', {
    name: 'Fold 120 withColumn calls into 1 withColumns'
  });
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  // no filter moves, and the panel says first what it does offer
  await expect(
    sidebar.getByRole('status').filter({
      hasText:
        /^1 chain of withColumn calls can be folded into withColumns, below\. No filter can move/
    })
  ).toBeVisible();
  await expect(card.locator('.jp-MagicPush-foldReason')).toContainText(
    '120 withColumn calls nest the plan 120 deep'
  );
  await expect(card.locator('.jp-MagicPush-source code')).toHaveText('df');
  await expect(card.locator('.jp-MagicPush-kind-fold')).toHaveText(
    'plan 120 deep, 1 once folded'
  );
  // the cell is a link to it, named as its prompt shows it
  await expect(
    card.getByRole('button', { name: /^Go to cell \[\d+\]$/ })
  ).toBeVisible();
  await card.getByRole('button', { name: /^Diff: show/ }).click();
  await expect(card.locator('.jp-MagicPush-diff')).toContainText(
    'withColumns('
  );
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({
    path: path.resolve(__dirname, '..', 'screenshots', 'fold-card.png')
  });
  // the diff side by side in a tab, with the card's Apply
  await card.getByRole('button', { name: /^Open side by side/ }).click();
  const tabTitle = page.getByRole('tab', {
    name: 'Diff: df — Fold 120 withColumn calls into 1 withColumns'
  });
  await expect(tabTitle).toHaveAttribute('aria-selected', 'true');
  const diffTab = page.locator('.jp-MagicPush-sideBySide');
  await expect(diffTab).toContainText('120 withColumn calls nest the plan');
  await expect(
    diffTab.getByRole('button', { name: /^Apply fold: rewrite cell/ })
  ).toBeEnabled();
  await page.notebook.activate('fold.ipynb');

  await card
    .getByRole('button', {
      name: /^Apply fold: rewrite cell \[\d+\] with 1 withColumns in place of 120 withColumn calls$/
    })
    .click();
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  await expect(
    card.getByRole('button', { name: /^Re-run the affected cells/ })
  ).toBeVisible();
  await expect(card.locator('.jp-MagicPush-rerun')).toContainText(
    'they hold the folded, shallower plan once the cells run again'
  );
  const folded = await cellSource(page, LOOP_CELL);
  expect(folded).toContain('.withColumns(');
  expect(folded).not.toContain('.withColumn(');
  expect(folded).not.toContain('for i in range(120):\n');

  // the whole notebook again, from the source: the same columns, and the same rows as a bag
  const ran = await executionCount(page, COUNT_CELL);
  await page.notebook.run();
  await expect
    .poll(() => executionCount(page, COUNT_CELL), { timeout: 2 * 60 * 1000 })
    .toBeGreaterThan(ran);
  // its outputs were cleared when the new run started: what shows now is the new run's
  await expect.poll(() => cellOutput(page, COUNT_CELL)).toBe(before);
  expect(await cellSource(page, LOOP_CELL)).toBe(folded);

  // Undo restores the loop as it was
  await card.getByRole('button', { name: /^Undo/ }).click();
  expect(await cellSource(page, LOOP_CELL)).toBe(CELLS[1]);
});
