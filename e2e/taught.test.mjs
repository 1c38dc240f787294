// Words a student needs before they are used, on the live pages (the ones that are plain text,
// not numbers): the formula shows the mask; the page says
// what row t's output is for; step 1 says what the notebook's row t averages; step 2 says where
// √d comes from; step 4 defines loss and gradient before it uses them; Break it names the
// softmax axis unambiguously; the training page explains the residual stream and the three kinds
// of positions; each page says where to start and where to go next. Numbers are checked elsewhere (truth.test.mjs, tests/sentences/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';

const app = useApp();

/** The page's whole text (closed disclosures included), once the parts after the first paint are in. */
async function pageText(page, marker) {
  await page.waitForFunction((m) => document.body.textContent.includes(m), marker, { timeout: 30_000 });
  return page.evaluate(() => document.body.textContent.replace(/\s+/g, ' '));
}

test('the explorer defines what it uses: mask, row t predicts t + 1, √d, loss and gradient, the softmax axis', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'step=average');
    let text = await pageText(page, 'averages t + 1 tokens');
    assert.match(text, /softmax\(mask\(QKᵀ \/ √d\)\)/, 'the formula shows the mask');
    assert.match(text, /Row t's output is what the model uses to predict token t \+ 1/);
    assert.match(text, /its row t averages t \+ 1 tokens/);
    assert.match(text, /softmax\(scores, dim=-2\)/, 'Break it names the query axis');
    assert.match(text, /The code lines are written as in PyTorch/, 'Break it explains its code');
    assert.match(text, /batch counts the sentences processed together/);
    assert.match(text, /What this page teaches/, 'the explorer says where to start');
    assert.doesNotMatch(text, /softmax\(scores, dim=0\)/, 'dim 0 is the batch in the notebook');
    await app.open(page, 'step=softmax');
    text = await pageText(page, 'step 4 shows why');
    assert.match(text, /step 4 shows why it is √d/);
    await app.open(page, 'step=scaling');
    text = await pageText(page, 'A model is scored by a loss');
    const loss = text.indexOf('A model is scored by a loss');
    const gradient = text.indexOf('that direction is the gradient');
    assert.ok(gradient > loss, 'the gradient is defined after the loss');
    // The lesson's last step leads on to the practice page, which leads on to training.
    await app.open(page, 'step=positions');
    await page.getByRole('link', { name: /Next: practise on this view/ }).waitFor();
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the practice page says where to start and where to go next', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await page.goto(`${app.url}/practice.html`, { waitUntil: 'load' });
    const text = await pageText(page, 'Where next: the training page');
    assert.match(text, /What this page is for: checking that you can read attention/);
    await page.getByRole('link', { name: 'Open the training page' }).waitFor();
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('the training page explains the residual stream and the three kinds of positions', { timeout: 120_000 }, async () => {
  const { page, context, consoleLog } = await app.newPage();
  try {
    await page.goto(`${app.url}/train.html`, { waitUntil: 'load' });
    // The closing "Where next" is built after the first paint, after the panel: wait for both.
    await pageText(page, 'residual stream');
    const text = await pageText(page, 'Where next: back to the explorer');
    assert.match(text, /residual stream/);
    assert.match(text, /sinusoidal adds a fixed sine–cosine code/);
    assert.match(text, /learned adds one vector per place/);
    assert.match(text, /rotary \(RoPE\)/);
    assert.match(text, /Where next: back to the explorer/);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
