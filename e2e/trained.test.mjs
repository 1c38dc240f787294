// Trained weights in the explorer: "Weights: trained on a tiny grammar" fetches
// checkpoints/grammar.bin (data beside the app, not in the wasm), and the heatmap, JSON and
// controls then describe the trained model. The JSON's matrices are checked against the checkpoint
// file itself (decoded here in JavaScript) and recomputed by NumPy (e2e/check_json.py); "What
// comes next" is checked against the next-token probabilities recomputed here from the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { useApp, saveDownload, waitForReady, E2E_DIR, ARTIFACTS_DIR, REPO_ROOT, grouped } from './harness.mjs';

const run = promisify(execFile);
const app = useApp();

const GRAMMAR_WORDS = ['the', 'my', 'cat', 'dog', 'mat', 'key', 'cabinet', 'box', 'cats', 'dogs', 'mats', 'keys',
  'cabinets', 'boxes', 'sat', 'slept', 'ran', 'on', 'under', 'near', 'to', 'is', 'are', 'rusted', 'old', 'small',
  'red', '.', 'and'];

/** The grammar checkpoint as matrices (format: src/model/train/checkpoint_file.rs). */
async function readCheckpoint() {
  const bytes = await readFile(path.join(REPO_ROOT, 'assets/checkpoints/grammar.bin'));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  assert.equal(bytes.subarray(0, 4).toString(), 'AECK');
  // Version 2: after the parameter count, the shape (layers, heads per layer, positions 0 = sinusoidal).
  assert.equal(bytes[4], 2);
  const steps = view.getUint32(14, true);
  const count = view.getUint32(18, true);
  assert.deepEqual([...bytes.subarray(22, 25)], [1, 2, 0]);
  const params = Array.from({ length: count }, (_, k) => view.getFloat32(25 + 4 * k, true));
  const d = 32;
  const vocab = GRAMMAR_WORDS.length;
  let at = 0;
  const take = (rows, cols) => {
    const m = Array.from({ length: rows }, (_, r) => params.slice(at + r * cols, at + (r + 1) * cols));
    at += rows * cols;
    return m;
  };
  const embedding = take(vocab, d);
  const [wq, wk, wv, wo] = [take(d, d), take(d, d), take(d, d), take(d, d)];
  const unembed = take(d, vocab);
  assert.equal(at, count, 'layout: embedding, one layer, unembedding');
  return { steps, embedding, wq, wk, wv, wo, unembed };
}

async function downloadJson(page, name) {
  const saved = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click(), {
    saveAs: path.join(ARTIFACTS_DIR, name),
  });
  return { file: saved.path, doc: JSON.parse(saved.text) };
}

/** The sinusoidal position code of position `p`, dimension `c`, for d_model = 32 (src/model/weights.rs). */
const pe = (p, c) => (c % 2 === 0 ? Math.sin(p / 10000 ** (c / 32)) : Math.cos(p / 10000 ** ((c - 1) / 32)));

/** Row `row`'s next-token probabilities, recomputed here from the checkpoint file: X = embedding +
 * position code, two causal heads at temperature `tau`, X + concat · W_o, times the unembedding, softmax. */
function nextTokenProbs(ckpt, words, row, tau) {
  const size = 16;
  const ids = words.slice(0, row + 1).map((w) => GRAMMAR_WORDS.indexOf(w.toLowerCase()));
  const x = ids.map((id, p) => ckpt.embedding[id].map((v, c) => v + pe(p, c)));
  const times = (a, m, from, to) => a.map((r) => Array.from({ length: to - from }, (_, c) => r.reduce((s, v, k) => s + v * m[k][from + c], 0)));
  const concat = x.map(() => []);
  for (let h = 0; h < 2; h++) {
    const [q, k, v] = [ckpt.wq, ckpt.wk, ckpt.wv].map((m) => times(x, m, size * h, size * (h + 1)));
    const i = row;
    const scores = k.map((kj) => kj.reduce((s, kc, c) => s + kc * q[i][c], 0) / (Math.sqrt(size) * tau));
    const top = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - top));
    const sum = e.reduce((a, b) => a + b, 0);
    for (let c = 0; c < size; c++) concat[i].push(e.reduce((s, w, j) => s + (w / sum) * v[j][c], 0));
  }
  const out = x[row].map((xc, c) => xc + concat[row].reduce((s, z, k) => s + z * ckpt.wo[k][c], 0));
  const logits = GRAMMAR_WORDS.map((_, w) => out.reduce((s, o, c) => s + o * ckpt.unembed[c][w], 0));
  const top = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** The explorer's next-token table as [word, printed percent] lines, the last one "(the other …)". */
async function nextTokenTable(page) {
  return page.$$eval('[data-testid=explorer-next-token-table] tbody tr', (rows) =>
    rows.map((r) => [r.querySelector('th').textContent, parseFloat(r.querySelector('td').textContent)]));
}

/** The readout agrees with the probabilities recomputed from the file, to its printed digits. */
async function assertReadout(page, ckpt, words, row, tau) {
  const probs = nextTokenProbs(ckpt, words, row, tau);
  const lines = await nextTokenTable(page);
  assert.equal(lines.length, 6, 'five likeliest words and the rest');
  const order = probs.map((p, w) => [w, p]).sort((a, b) => b[1] - a[1]);
  lines.slice(0, 5).forEach(([word, shown], k) => {
    assert.equal(word, GRAMMAR_WORDS[order[k][0]], `rank ${k + 1}`);
    assert.ok(Math.abs(shown - 100 * order[k][1]) <= 0.05 + 1e-9, `${word}: ${shown} vs ${100 * order[k][1]}`);
  });
  const rest = order.slice(5).reduce((s, [, p]) => s + p, 0);
  assert.match(lines[5][0], /^\(the other 24 tokens\)$/);
  assert.ok(Math.abs(lines[5][1] - 100 * rest) <= 0.05 + 1e-9);
  const total = lines.reduce((s, [, p]) => s + p, 0);
  assert.ok(Math.abs(total - 100) <= 0.3, `the lines add up to 100%: ${total}`);
  const following = await page.getByTestId('explorer-following-token').textContent();
  if (row + 1 < words.length) {
    const p = probs[GRAMMAR_WORDS.indexOf(words[row + 1].toLowerCase())];
    const [, loss] = following.match(/a loss of ([0-9.]+) nats/);
    assert.ok(Math.abs(Number(loss) + Math.log(p)) <= 0.0005 + 1e-9, `${following} vs −ln ${p}`);
  } else {
    assert.match(following, /This is the last row/);
  }
}

const maxGap = (a, b) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));

test('trained weights: fetched on demand, shown, exported and recomputed', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    const requests = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await app.open(page, '');
    assert.ok(!requests.some((p) => p.includes('checkpoints/')), 'nothing fetched for the random weights');
    assert.match(await page.getByTestId('weights-note').textContent(), /^Not trained: /);

    // Choose the trained weights with the keyboard.
    await page.locator('#weights').focus();
    await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => document.querySelector('[data-testid=weights-note]').textContent.startsWith('Trained weights'));
    await waitForReady(page);
    assert.ok(requests.some((p) => p.endsWith('/checkpoints/grammar.bin')), 'the checkpoint was fetched');
    const note = await page.getByTestId('weights-note').textContent();
    const ckpt = await readCheckpoint();
    assert.ok(note.includes(`for ${grouped(ckpt.steps)} steps (seed 1)`), note);
    // The checkpoint fixes the heads and positions; the controls say so and the link keeps them.
    assert.equal(await page.locator('#heads').inputValue(), '2');
    assert.ok(await page.locator('#heads').isDisabled());
    assert.ok(await page.locator('#positions').isChecked());
    assert.ok(await page.locator('#positions').isDisabled());
    await page.waitForFunction(() => /[?&]w=grammar/.test(location.search) && /[?&]pos=1/.test(location.search));
    assert.equal(new URL(page.url()).searchParams.get('heads'), '2');

    // The JSON holds the checkpoint's own numbers: X = embedding + position code, W_q, W_k, W_v
    // as each head's column block, W_o.
    const { file, doc } = await downloadJson(page, 'trained.json');
    assert.equal(doc.weights_source, 'trained');
    assert.deepEqual(doc.checkpoint, { task: 'grammar', seed: 1, steps: ckpt.steps });
    assert.equal(doc.n_heads, 2);
    assert.equal(doc.positions, true);
    const ids = doc.tokens.map((t) => GRAMMAR_WORDS.indexOf(t.toLowerCase()));
    const x = ids.map((id, p) => ckpt.embedding[id].map((v, c) => v + pe(p, c)));
    assert.ok(maxGap(doc.embeddings, x) <= 1e-12, `X: ${maxGap(doc.embeddings, x)}`);
    doc.heads.forEach((h, k) => {
      const cols = (m) => m.map((row) => row.slice(16 * k, 16 * (k + 1)));
      assert.deepEqual(h.w_q, cols(ckpt.wq), `head ${k + 1} W_q`);
      assert.deepEqual(h.w_k, cols(ckpt.wk), `head ${k + 1} W_k`);
      assert.deepEqual(h.w_v, cols(ckpt.wv), `head ${k + 1} W_v`);
    });
    assert.deepEqual(doc.w_o, ckpt.wo);
    const { stdout } = await run('python3', [path.join(E2E_DIR, 'check_json.py'), file], { timeout: 30_000 });
    assert.match(stdout, /OK: NumPy reproduces the download/);

    // What comes next: the selected row (row 6, "mat", by default) predicts from the file's own
    // numbers at τ = 1; clicking the chip of row 2 ("cat") moves the readout there.
    const words = doc.tokens;
    const caption = () => page.locator('[data-testid=explorer-next-token-table] caption').textContent();
    await page.getByTestId('explorer-next-token-table').waitFor();
    assert.match(await caption(), /after “mat” \(row 6\)/);
    await assertReadout(page, ckpt, words, 5, 1);
    await page.locator('.chips .chip').nth(1).click();
    await page.waitForFunction(() => /\(row 2\)/.test(document.querySelector('[data-testid=explorer-next-token-table] caption').textContent));
    await assertReadout(page, ckpt, words, 1, 1);
    // A word the grammar never had: the page says so and shows the random weights, truthfully.
    await page.locator('#sentence').fill('the cat sat on the sofa .');
    await page.locator('#sentence').press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=weights-note]').textContent.startsWith('Not trained'));
    assert.match(await page.getByTestId('weights-status').textContent(), /“sofa” is not one of them\. Showing the random weights\./);
    assert.ok(!(await page.locator('#heads').isDisabled()));
    // Random weights have no unembedding: the readout says so instead of predicting.
    assert.match(await page.getByTestId('no-prediction').textContent(), /^The random model has no unembedding at all/);
    assert.equal(await page.getByTestId('explorer-next-token-table').count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('a link with w=grammar opens on the trained weights', { timeout: 60_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'w=grammar&tau=100&row=7');
    await page.waitForFunction(() => document.querySelector('[data-testid=weights-note]').textContent.startsWith('Trained weights'));
    // τ still works on the trained model: at τ = 100 row 7 is close to uniform (1/7 each).
    const { doc } = await downloadJson(page, 'trained-hot.json');
    const row = doc.heads[0].weights[6];
    assert.ok(row.every((w) => Math.abs(w - 1 / 7) < 0.01), row.join(', '));
    // The prediction is made at the slider's τ too; the last row has no following word.
    await page.getByTestId('explorer-next-token-table').waitFor();
    await assertReadout(page, await readCheckpoint(), doc.tokens, 6, 100);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
