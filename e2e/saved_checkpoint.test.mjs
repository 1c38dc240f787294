// "Show the trained checkpoint" on the training page fetches the task's saved
// weights (checkpoints/<task>.bin, data beside the app) and shows their head-detector scores,
// computed in the browser; they must equal what native code computes from the same file
// (tests/data/checkpoint_scores.txt, pinned by tests/checkpoints.rs) to 1e-9.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { useApp, REPO_ROOT } from './harness.mjs';

const app = useApp();

/** The native scores: task → rows of [layer, head, previous, induction, first, self, entropy]. */
async function nativeScores() {
  const text = await readFile(path.join(REPO_ROOT, 'tests/data/checkpoint_scores.txt'), 'utf8');
  const rows = {};
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [task, ...fields] = line.trim().split(/\s+/);
    (rows[task] ??= []).push(fields.map(Number));
  }
  return rows;
}

for (const [task, query, label] of [['Repeat', '', 'repeat'], ['Grammar', 'train=grammar', 'tiny grammar']]) {
  test(`the ${label} checkpoint's detector scores equal native code's`, { timeout: 60_000 }, async () => {
    const native = (await nativeScores())[task];
    const { page, context, consoleLog } = await app.newPage();
    try {
      const requests = [];
      page.on('request', (r) => requests.push(new URL(r.url()).pathname));
      await page.goto(`${app.url}/train.html${query ? `?${query}` : ''}`, { waitUntil: 'load' });
      await page.getByTestId('load-saved').click();
      await page.getByTestId('saved-table').waitFor();
      assert.ok(requests.some((p) => p.endsWith(`/checkpoints/${task.toLowerCase()}.bin`)), requests.join(' '));
      assert.match(await page.getByTestId('saved-note').textContent(), new RegExp(`the ${label} task's default run, seed 1`));
      const rows = await page.getByTestId('saved-table').locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          head: tr.querySelector('th').textContent,
          scores: tr.dataset.scores.split(' ').map(Number),
          agreement: [...tr.querySelectorAll('td')].slice(-2).map((td) => [td.dataset.value, td.textContent]),
        })));
      // The agreement columns: the grammar checkpoint's weights (from the same Rust report as the
      // training page's), none for the repeat task.
      for (const { agreement } of rows) {
        for (const [value, text] of agreement) {
          if (task === 'Repeat') assert.deepEqual([value, text], [undefined, '–']);
          else assert.ok(Number(value) >= 0 && Number(value) <= 1 && Number(value).toFixed(2) === text, `${value} ${text}`);
        }
      }
      assert.equal(rows.length, native.length);
      rows.forEach((row, k) => {
        const [layer, head, ...want] = native[k];
        assert.equal(row.head, `Layer ${layer}, head ${head}`);
        want.forEach((w, i) => {
          const got = row.scores[i];
          if (Number.isNaN(w)) assert.ok(Number.isNaN(got), `${row.head} score ${i}`);
          else assert.ok(Math.abs(got - w) <= 1e-9 * Math.max(1, Math.abs(w)), `${row.head} score ${i}: ${got} vs ${w}`);
        });
      });
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}
