// "every sentence true": the sentences that state facts about the numbers are checked
// against the page's own JSON download (the exact weights the page drew), for 1, 2, 4 and 8
// heads, positions on and off, and temperatures across the slider. The native suite sweeps the
// same claims more densely (src/text/, src/model/claims.rs, tests/sentences/); this checks what the page shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadText, eventually } from './harness.mjs';

const app = useApp();

async function downloadJson(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download JSON' }).click(),
  ]);
  return JSON.parse(await downloadText(download));
}

/** Rows after the first whose largest weight is above 0.95, and rows whose top weight is tied. */
function shape(weights) {
  let nearlyOneHot = 0;
  let tied = 0;
  for (let i = 1; i < weights.length; i++) {
    const row = weights[i].slice(0, i + 1);
    const max = Math.max(...row);
    if (max > 0.95) nearlyOneHot++;
    if (row.filter((w) => max - w < 1e-12).length > 1) tied++;
  }
  return { nearlyOneHot, tied, rows: weights.length - 1 };
}

test('the regime sentence states the live head\'s counts, for every head split, positions on and off', { timeout: 240_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    for (const heads of [1, 2, 4, 8]) {
      const d = 32 / heads;
      for (const pos of [0, 1]) {
        for (const tau of [0.01, 1 / Math.sqrt(d), 0.5, 1, 100]) {
          const head = heads; // the last head, so not always head 1
          await app.open(page, `heads=${heads}&head=${head}&pos=${pos}&tau=${tau}`);
          const json = await downloadJson(page);
          const weights = json.heads[head - 1].weights;
          const s = shape(weights);
          const text = await page.locator('#temperature-regime').textContent();
          const what = `heads=${heads} pos=${pos} τ=${tau}: ${text}`;
          const counted = s.nearlyOneHot === 0 ? `none of the ${s.rows} rows` : s.nearlyOneHot === s.rows ? `all ${s.rows} rows` : `${s.nearlyOneHot} of the ${s.rows} rows`;
          assert.ok(text.includes(` ${counted} that see more than one key `), what);
          if (s.tied === 0) assert.ok(!text.includes('tied'), what);
          else assert.ok(text.includes(` ${s.tied} of them split`), what);
          if (pos === 1) assert.equal(s.tied, 0, `${what}: positions break the tie`);
        }
      }
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the positions help is true: "The" and "the" weigh the same without positions, differently with them', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    for (const pos of [0, 1]) {
      await app.open(page, `heads=4&pos=${pos}`);
      const help = await page.getByTestId('positions-help').textContent();
      const json = await downloadJson(page);
      assert.deepEqual([json.tokens[0], json.tokens[4]], ['The', 'the']);
      for (const h of json.heads) {
        for (let i = 4; i < json.tokens.length; i++) {
          if (pos === 0) assert.equal(h.weights[i][0], h.weights[i][4], `row ${i + 1}`);
          else assert.notEqual(h.weights[i][0], h.weights[i][4], `row ${i + 1}`);
        }
      }
      if (pos === 0) {
        assert.match(help, /“The” \(token 1\) and “the” \(token 5\) get identical keys and values, and every row that sees both gives them exactly the same weight\./);
        assert.match(help, /ignores capitals/);
      } else {
        assert.match(help, /“The” \(token 1\) and “the” \(token 5\) now get different keys, and a row that sees both can weigh them differently\./);
      }
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('tied top keys are all named, and the page says the weights are random', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'heads=2&head=2&tau=0.01&row=5&seed=1337');
    const json = await downloadJson(page);
    const row = json.heads[1].weights[4];
    assert.equal(row[0], row[4], 'the known tie: head 2, row "the" at τ = 0.01');
    const percent = `${(row[0] * 100).toFixed(1)}%`;
    const label = await page.locator('canvas.heatmap').first().getAttribute('aria-label');
    assert.ok(label.includes(`Row 5 “the” attends most to “The” and “the” (${percent} each).`), label);
    await eventually(async () => {
      const bars = await page.locator('canvas.bars').getAttribute('aria-label');
      assert.ok(bars.includes(`the largest bars are “The” and “the” at ${percent} each.`), bars);
    });
    const note = await page.getByTestId('weights-note').textContent();
    assert.match(note, /^Not trained: the word vectors and W_q, W_k, W_v and W_o are random \(seed 1337\), so which word a row picks means nothing yet\./);
    await app.open(page, 'seed=42');
    assert.match(await page.getByTestId('weights-note').textContent(), /are random \(seed 42\),/);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('step 4 marks the notebook\'s numbers as quoted and reads them against the computed bands', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=scaling');
    const text = await page.getByTestId('notebook-draws').textContent();
    assert.match(text, /^Quoted from the notebook, not computed here/);
    // The scaled means quoted as a range are the table's own.
    const means = await page.locator('[data-testid=lab-table] tbody tr td:nth-child(3)').evaluateAll((tds) =>
      tds.map((td) => Number(td.textContent.trim().split(' ')[0])),
    );
    // At the table's precision, so the smallest and largest means are the table's (0.309, not 0.31).
    const m = text.match(/The scaled mean stays between (\d\.\d{3}) and (\d\.\d{3}) at every head size/);
    assert.ok(m, text);
    assert.equal(m[1], Math.min(...means).toFixed(3));
    assert.equal(m[2], Math.max(...means).toFixed(3));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
