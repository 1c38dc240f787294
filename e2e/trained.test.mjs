// Trained weights in the explorer: "Weights: trained on a tiny grammar" fetches
// checkpoints/grammar.bin (data beside the app, not in the wasm), and the heatmap, JSON and
// controls then describe the trained model. The JSON's matrices are checked against the checkpoint
// file itself (decoded here in JavaScript) and recomputed by NumPy (e2e/check_json.py).
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
  take(d, vocab);
  assert.equal(at, count, 'layout: embedding, one layer, unembedding');
  return { steps, embedding, wq, wk, wv, wo };
}

async function downloadJson(page, name) {
  const saved = await saveDownload(page, () => page.getByRole('button', { name: 'Download JSON' }).click(), {
    saveAs: path.join(ARTIFACTS_DIR, name),
  });
  return { file: saved.path, doc: JSON.parse(saved.text) };
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
    const pe = (p, c) => (c % 2 === 0 ? Math.sin(p / 10000 ** (c / 32)) : Math.cos(p / 10000 ** ((c - 1) / 32)));
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

    // A word the grammar never had: the page says so and shows the random weights, truthfully.
    await page.locator('#sentence').fill('the cat sat on the sofa .');
    await page.locator('#sentence').press('Enter');
    await page.waitForFunction(() => document.querySelector('[data-testid=weights-note]').textContent.startsWith('Not trained'));
    assert.match(await page.getByTestId('weights-status').textContent(), /“sofa” is not one of them\. Showing the random weights\./);
    assert.ok(!(await page.locator('#heads').isDisabled()));
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
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
