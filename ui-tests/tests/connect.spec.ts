import { expect, IJupyterLabPageFixture, test } from '@jupyterlab/galata';
import * as fs from 'fs';
import * as path from 'path';
import { cellSource, openTracingSidebar } from './notebook';

/**
 * The example notebook, its cells unchanged, in a kernel whose Spark session is a Spark
 * Connect session: jupyter_server_test_config.py defines that kernel (SPARK_API_MODE=connect,
 * so the notebook's builder starts a local Connect server in the kernel and connects to it).
 */
const NOTEBOOK = 'udf_filter_connect.ipynb';
const CONNECT_KERNEL = 'python3-spark-connect';
const READ_CELL = 3; // orders = spark.read.parquet(path)
const COUNT_CELL = 6; // prints "N big-earner orders in S s"

// Spark and its Connect server start in the kernel, which writes a million rows of Parquet first.
test.setTimeout(8 * 60 * 1000);
test.use({ viewport: { width: 1280, height: 800 } });

/** The text a cell's outputs show. */
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
      texts.push(String(data.text ?? data.data?.['text/plain'] ?? ''));
    }
    return texts.join('');
  }, index);
}

/** The big-earner count the example's last cell printed. */
async function bigEarners(page: IJupyterLabPageFixture): Promise<number> {
  const text = await cellOutput(page, COUNT_CELL);
  const match = /(\d+) big-earner orders/.exec(text);
  expect(match, `output of the count cell: ${text}`).not.toBeNull();
  return Number(match![1]);
}

test('the example notebook in a Spark Connect kernel: a proved, counted pushdown, applied', async ({
  page,
  tmpPath
}) => {
  const example = path.resolve(
    __dirname,
    '..',
    '..',
    'examples',
    'udf_filter.ipynb'
  );
  const notebook = JSON.parse(fs.readFileSync(example, 'utf-8'));
  notebook.metadata.kernelspec = {
    name: CONNECT_KERNEL,
    display_name: 'Python 3 (Spark Connect)',
    language: 'python'
  };
  await page.contents.uploadContent(
    JSON.stringify(notebook),
    'text',
    `${tmpPath}/${NOTEBOOK}`
  );
  await page.notebook.openByPath(`${tmpPath}/${NOTEBOOK}`);
  await page.notebook.activate(NOTEBOOK);

  const sidebar = await openTracingSidebar(page);
  await page.notebook.run();

  // the session the notebook made is a Spark Connect one
  await page.notebook.addCell('code', 'print(type(spark).__module__)');
  await page.notebook.runCell(COUNT_CELL + 1);
  await expect
    .poll(() => cellOutput(page, COUNT_CELL + 1), { timeout: 60 * 1000 })
    .toContain('pyspark.sql.connect.session');
  const before = await bigEarners(page);
  expect(before).toBeGreaterThan(0);

  await sidebar.getByRole('button', { name: 'Optimize pipeline' }).click();
  const card = sidebar.locator('.jp-MagicPush-card').first();
  await expect(card).toBeVisible({ timeout: 3 * 60 * 1000 });
  await expect(card.locator('.jp-MagicPush-category').first()).toHaveText(
    'ROW-TO-ROW'
  );
  await expect(card).toContainText('base case: 1 row');
  await expect(card.locator('.jp-MagicPush-source')).toContainText('orders');
  // rows before and after, counted on the Connect session after the suggestion shows
  const rows = card.locator('.jp-MagicPush-rows');
  await expect(rows).toHaveText(/rows: 1,000,000 → [\d,]+ \(−\d+\.\d%\)/, {
    timeout: 3 * 60 * 1000
  });
  const after = Number(
    /→ ([\d,]+)/.exec((await rows.textContent())!)![1].replace(/,/g, '')
  );
  // the filter at the source keeps exactly the big earners' orders
  expect(after).toEqual(before);

  await card.getByRole('button', { name: /^Diff: show/ }).click();
  await expect(card.locator('.jp-MagicPush-diff-add').first()).toContainText(
    '.filter('
  );
  await page.sidebar.close('left');
  await page.screenshot({
    path: path.resolve(
      __dirname,
      '..',
      'screenshots',
      'connect-sidebar-suggestion.png'
    )
  });

  // Apply rewrites the read of `orders`; run again, the notebook prints the same count
  const original = await cellSource(page, READ_CELL);
  await card.getByRole('button', { name: /^Apply/ }).click();
  await expect(card.getByRole('button', { name: /^Applied/ })).toBeDisabled();
  const rewritten = await cellSource(page, READ_CELL);
  expect(rewritten).not.toEqual(original);
  expect(rewritten).toContain('.filter(');

  await page.notebook.run();
  await expect
    .poll(() => cellOutput(page, COUNT_CELL + 1), { timeout: 60 * 1000 })
    .toContain('pyspark.sql.connect.session');
  expect(await bigEarners(page)).toEqual(before);
});
