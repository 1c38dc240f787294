// "Predict, then reveal": answer every question kind right and then wrong, by keyboard
// where the page is used by keyboard, and check the grading, the revealed number and the progress
// against answers computed here from the JSON download (never read from the app's answer); a link
// with quiz=<seed> asks the same questions in a fresh browser context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, downloadJson, eventually, revealAnswer } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';
import { headWeights as weights, maxDiff, sum } from './model_port.mjs';

const app = useApp();
const QUERY = 'quiz=5';
const KINDS = [
  'first-row', 'top-key', 'masked-cell', 'half-tau', 'hot-limit',
  'spread-head', 'equal-columns', 'which-mistake', 'dropout-mean', 'weight',
];
const MISTAKES = {
  'Scale by √d_model instead of √d (the head size)': 'd-model',
  'Multiply by √d instead of dividing': 'multiply',
  'The wrong triangle: triu instead of tril': 'triu',
  'Mask with 0 instead of −∞': 'mask-zero',
  'Softmax over the query axis (down each column) instead of the key axis (along each row)': 'columns',
  'Mask after the softmax, without renormalising': 'mask-after',
  'Dropout on the weights (p = 0.1) at inference': 'dropout',
};

/** The progress line: every answer checked in the tab, over all rounds. */
const progressText = (correct, answered) =>
  `${correct} of ${answered} answer${answered === 1 ? '' : 's'} correct, every round so far`;

const entropy = (row) => -sum(row.filter((w) => w > 0).map((w) => w * Math.log2(w)));

/** The question on screen: its kind, legend, choice labels and the numbers it names. */
async function current(page) {
  const fieldset = page.locator('#quiz fieldset');
  const kind = await fieldset.getAttribute('data-kind');
  const legend = await fieldset.locator('legend').textContent();
  const choices = await fieldset.locator('.quiz-choice label').allTextContents();
  const [, k, n, round] = legend.match(/^Question (\d+) of (\d+)(?: \(round (\d+)\))?:/).map(Number);
  const row = Number(legend.match(/row (\d+)/)?.[1]) - 1;
  const key = Number(legend.match(/key (\d+)/)?.[1]) - 1;
  return { kind, legend, choices, k, n, round: round || 1, row, key, prompt: legend.replace(/^[^:]*: /, '') };
}

/** Every cell of the question's heatmap, read from its hover tooltips (as a learner would). */
async function readMystery(page, T, tokens) {
  const canvas = page.locator('#quiz canvas.heatmap');
  await canvas.scrollIntoViewIfNeeded();
  await eventually(async () => assert.ok((await canvas.evaluate((c) => c.clientWidth)) > 0));
  const width = await canvas.evaluate((c) => c.clientWidth);
  const box = await canvas.boundingBox();
  const l = heatmapLayout(width, T, Math.max(...tokens.map((t) => [...t].length)), 13.0, true);
  const tip = page.locator('[role=tooltip]');
  const cells = [];
  for (let i = 0; i < T; i++) {
    cells.push([]);
    for (let j = 0; j < T; j++) {
      await page.mouse.move(box.x + l.colX(j) + l.cell * 0.3, box.y + l.rowY(i) + l.cell * 0.7);
      const text = await eventually(async () => {
        const t = await tip.first().textContent();
        assert.ok(t.startsWith(`${tokens[i]} → ${tokens[j]}: `), t);
        return t;
      });
      cells[i].push(Number(text.match(/: ([\d.]+)%/)[1]) / 100);
    }
  }
  await page.mouse.move(1, 1);
  return cells;
}

/**
 * The right and a wrong response, and the number the reveal must show, for the question `q`,
 * computed from the JSON (head h, temperature tau).
 */
async function solve(page, q, json, h) {
  const tau = json.temperature;
  const W = weights(json, h, tau);
  assert.ok(maxDiff(W, json.heads[h].weights) < 1e-12, 'the JSON recomputes');
  const T = W.length;
  const pick = (good) => {
    const right = q.choices.findIndex(good);
    const wrong = q.choices.findIndex((c) => !good(c));
    assert.ok(right >= 0 && wrong >= 0, `${q.legend}: ${q.choices}`);
    return { right: { choice: right }, wrong: { choice: wrong } };
  };
  const typed = (value, tolerance, off = 0.3) => ({
    right: { number: value.toFixed(4) },
    wrong: { number: (value > 0.5 ? value - off : value + off).toFixed(4) },
    shown: value.toFixed(4),
    tolerance,
  });
  switch (q.kind) {
    case 'first-row':
      return typed(W[0][0], 5e-4);
    case 'masked-cell':
      assert.ok(q.key > q.row);
      assert.equal(W[q.row][q.key], 0);
      return typed(0, 5e-4);
    case 'hot-limit':
      return typed(1 / (q.row + 1), 5e-4);
    case 'weight':
      return typed(W[q.row][q.key], 0.05);
    case 'top-key': {
      const row = W[q.row].slice(0, q.row + 1);
      const best = Math.max(...row);
      const top = (label) => Math.abs(row[Number(label.match(/key (\d+)/)[1]) - 1] - best) < 1e-12;
      return { ...pick(top), shown: best.toFixed(4) };
    }
    case 'half-tau': {
      const colder = weights(json, h, tau / 2);
      const [before, after] = [Math.max(...W[q.row]), Math.max(...colder[q.row])];
      const word = Math.abs(after - before) < 1e-12 ? 'it stays the same' : after > before ? 'it gets peakier' : 'it gets flatter';
      return { ...pick((c) => c === word), shown: after.toFixed(4) };
    }
    case 'spread-head': {
      const mean = (hh) => sum(weights(json, hh, tau).slice(1).map((r, i) => entropy(r.slice(0, i + 2)))) / (T - 1);
      const heads = q.choices.map((c) => Number(c.match(/head (\d+)/)[1]) - 1);
      const [a, b] = heads.map(mean);
      const spread = a > b ? heads[0] : heads[1];
      return { ...pick((c) => c === `head ${spread + 1}`), shown: a.toFixed(3) };
    }
    case 'equal-columns': {
      assert.equal(json.positions, false, 'the walk runs with positions off, so the JSON is that model');
      const equal = (label) => {
        const [a, b] = [...label.matchAll(/column (\d+)/g)].map((m) => Number(m[1]) - 1);
        return W.slice(b).every((r) => Math.abs(r[a] - r[b]) <= 1e-12);
      };
      return { ...pick(equal), shown: '0.0000' };
    }
    case 'dropout-mean': {
      // On average over masks the row's sum is its own sum, 1; the reveal shows this page's one
      // mask's sum beside it.
      assert.deepEqual([...q.choices].sort(), ['0.900', '1.000', '1.111']);
      const s = sum(weights(json, h, tau, new Set(['dropout']))[q.row]);
      return { ...pick((c) => c === '1.000'), shown: s.toFixed(4) };
    }
    case 'which-mistake': {
      const seen = await readMystery(page, T, json.tokens);
      const made = Object.fromEntries(Object.values(MISTAKES).map((k) => [k, weights(json, h, tau, new Set([k]))]));
      const fits = (label) => maxDiff(made[MISTAKES[label]], seen) <= 0.0005 + 1e-9;
      assert.ok(q.choices.every((c) => c in MISTAKES), q.choices.join());
      const answer = q.choices.find(fits);
      return { ...pick(fits), shown: maxDiff(made[MISTAKES[answer]], W).toFixed(4) };
    }
    default:
      throw new Error(`unknown kind ${q.kind}`);
  }
}

/** Answers the question on screen with `response` by keyboard, presses Check, returns the reveal. */
async function answer(page, response) {
  if ('choice' in response) {
    const radio = page.locator('#quiz input[type=radio]').nth(response.choice);
    await radio.focus();
    await page.keyboard.press('Space');
    assert.equal(await radio.isChecked(), true);
  } else {
    const box = page.getByLabel('Your answer', { exact: true });
    await box.fill(response.number);
  }
  await page.getByRole('button', { name: 'Check' }).press('Enter');
  const verdict = page.locator('[data-testid=quiz-verdict]');
  await eventually(async () => assert.ok(await verdict.locator('[data-testid=quiz-number]').textContent()));
  // Focus moves to the verdict, a live status region.
  await eventually(async () => assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'quiz-verdict'));
  assert.equal(await verdict.getAttribute('role'), 'status');
  return {
    verdict: await verdict.locator('strong').textContent(),
    number: await verdict.locator('[data-testid=quiz-number]').textContent(),
    text: await verdict.textContent(),
  };
}

async function next(page) {
  await page.getByRole('button', { name: 'Next question' }).click();
}

async function progress(page) {
  return page.locator('[data-testid=quiz-progress]').textContent();
}

test('every kind answered right and wrong, graded against the JSON; progress kept; quiz= repeats the set', { timeout: 240_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  const legends = [];
  const round2 = [];
  let nextSeed = null;
  try {
    await app.open(page, QUERY, { file: 'practice.html' });
    // The downloads wait while a question is open: check one, save the JSON, and start afresh.
    assert.equal(await page.getByRole('button', { name: 'Download JSON' }).isDisabled(), true);
    await revealAnswer(page);
    const json = await downloadJson(page);
    await page.reload();
    await page.locator('#quiz fieldset').waitFor();
    const h = 0;
    await page.locator('#quiz').scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: 'Reset progress' }).click();
    assert.equal(await progress(page), progressText(0, 0));

    // Check with nothing chosen asks for an answer and reveals nothing.
    const first = await current(page);
    await page.getByRole('button', { name: 'Check' }).click();
    await eventually(async () => assert.match(await page.locator('[data-testid=quiz-verdict]').textContent(), /first/));
    assert.equal(await page.locator('[data-testid=quiz-number]').textContent(), '');

    // Guessing a weight comes first, before any Check has shown the heatmap's numbers.
    assert.equal(first.kind, 'weight', first.legend);
    const n = first.n;
    assert.ok(n >= KINDS.length - 1, `${n} questions`);
    const seen = new Set();
    let correct = 0;
    let answered = 0;
    let total = 0;
    for (const pass of ['right', 'wrong']) {
      // Round 2 asks new questions: the link's quiz seed moves on (the same for everyone).
      if (pass === 'wrong') {
        await eventually(async () => {
          nextSeed = new URL(page.url()).searchParams.get('quiz');
          assert.ok(nextSeed && nextSeed !== '5', page.url());
        });
      }
      const size = (await current(page)).n;
      for (let k = 0; k < size; k++) {
        const q = await current(page);
        assert.equal(q.k, k + 1, q.legend);
        // The legend says which round it is.
        assert.equal(q.round, pass === 'right' ? 1 : 2, q.legend);
        (pass === 'right' ? legends : round2).push([q.prompt, q.choices]);
        seen.add(q.kind);
        // Before Check the page holds no verdict and no model number.
        const before = await page.locator('#quiz').textContent();
        assert.ok(!before.includes('The answer:') && !before.includes('The model'), before);
        const sol = await solve(page, q, json, h);
        const got = await answer(page, sol[pass]);
        // A question the new round shares with the first (row 1's weight on itself is the same
        // for every seed) is graded but not counted again.
        // (Which mistake made a heatmap asks the same words of another heatmap: a new question.)
        const samePrompt = pass === 'wrong' && legends.some(([p, c]) => p === q.prompt && c.join() === q.choices.join());
        const askedBefore = got.verdict.includes('so the score does not count it again');
        if (q.kind === 'which-mistake') assert.ok(!askedBefore || samePrompt, got.verdict);
        else assert.equal(askedBefore, samePrompt, `${q.legend}: ${got.verdict}`);
        if (!askedBefore) {
          answered += 1;
          correct += pass === 'right' ? 1 : 0;
        }
        assert.ok(got.verdict.startsWith(pass === 'right' ? 'Right.' : 'Not quite.'), `${q.kind} ${pass}: ${got.verdict}`);
        assert.ok(got.number.includes(sol.shown), `${q.kind}: "${got.number}" shows ${sol.shown}`);
        if ('choice' in sol.right) assert.ok(got.verdict.includes(q.choices[sol.right.choice]), got.verdict);
        assert.equal(await progress(page), progressText(correct, answered));
        // Checked answers are locked.
        assert.equal(await page.locator('#quiz fieldset').evaluate((f) => f.disabled), true);
        await next(page);
      }
      total += size;
    }
    assert.deepEqual([...seen].sort(), [...KINDS].sort(), 'every kind was asked');
    assert.notDeepEqual(round2, legends.slice(0, round2.length), 'round 2 asks other questions');

    // Progress survives a reload of the tab (sessionStorage), and resets on request.
    await page.reload();
    await page.locator('#quiz').waitFor();
    assert.equal(await progress(page), progressText(n, answered));
    assert.ok(answered > n && answered <= total, `${answered} counted of ${total} checked`);
    await page.getByRole('button', { name: 'Reset progress' }).click();
    assert.equal(await progress(page), progressText(0, 0));
    consoleLog.assertClean();
  } finally {
    await context.close();
  }

  // A fresh context (another student) with the same link gets the same questions.
  const other = await app.newPage({ viewport: { width: 360, height: 740 } });
  try {
    await app.open(other.page, QUERY, { file: 'practice.html' });
    assert.equal(await progress(other.page), progressText(0, 0), 'progress is per tab');
    for (const [prompt, choices] of legends) {
      const q = await current(other.page);
      assert.deepEqual([q.prompt, q.choices], [prompt, choices]);
      await next(other.page);
    }
    // Round 2 there is round 2 here.
    for (const [prompt, choices] of round2) {
      const q = await current(other.page);
      assert.equal(q.round, 2, q.legend);
      assert.deepEqual([q.prompt, q.choices], [prompt, choices]);
      await next(other.page);
    }
    await eventually(async () => assert.equal(new URL(other.page.url()).searchParams.get('quiz'), nextSeed));
    // No horizontal scrolling at 360 px.
    const overflow = await other.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `overflow ${overflow}px`);
    other.consoleLog.assertClean();
  } finally {
    await other.context.close();
  }
});

test('a question checked again after the view changes and comes back is not counted twice', { timeout: 90_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, QUERY, { file: 'practice.html' });
    await page.locator('#quiz').scrollIntoViewIfNeeded();
    await page.getByRole('button', { name: 'Reset progress' }).click();
    const first = await current(page);
    await answer(page, { number: '0.5' });
    const once = await progress(page);
    assert.match(once, /^[01] of 1 answer correct/);
    // τ away and back: the same question again, its numbers hidden again.
    await page.getByRole('button', { name: 'unscaled', exact: true }).click();
    await eventually(async () => assert.doesNotMatch(page.url(), /tau=1&/));
    await page.getByRole('button', { name: 'τ = 1', exact: true }).click();
    await eventually(async () => assert.match(page.url(), /tau=1&/));
    await eventually(async () => assert.equal((await current(page)).legend, first.legend));
    assert.equal(await page.locator('#quiz fieldset').evaluate((f) => f.disabled), false);
    const got = await answer(page, { number: '0.5' });
    assert.match(got.verdict, /checked before on this page, so the score does not count it again\.$/);
    assert.equal(await progress(page), once);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('predict, then reveal: the numbers a question asks about are hidden until Check', { timeout: 120_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, `${QUERY}&row=4`, { file: 'practice.html' });
    const canvas = page.locator('canvas.heatmap').first();
    const label = () => canvas.getAttribute('aria-label');
    const pixels = () => canvas.evaluate((c) => c.toDataURL());
    // A question is open: no weights in the heatmap's name, its cells or its tooltip, and the row
    // table is hidden.
    await eventually(async () => assert.match(await label(), /Numbers are hidden until you check your answer\.$/));
    assert.doesNotMatch(await label(), /%/);
    assert.equal(await page.locator('[data-testid=inspector-table]').count(), 0);
    assert.equal(await page.getByTestId('inspector-hidden').textContent(), 'Numbers are hidden until you check your answer.');
    // The positions help names the equal key columns, which one question asks for.
    assert.equal(await page.getByTestId('positions-help').isVisible(), false);
    // The temperature readout says what τ does, but gives none of the head's numbers.
    const regime = page.locator('#temperature-regime');
    assert.match(await regime.textContent(), /The heatmap's own numbers stay hidden until you check your answer\.$/);
    assert.doesNotMatch(await regime.textContent(), /%|largest weight/);
    const bare = await pixels();
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6);
    const tip = page.locator('.tooltip');
    await eventually(async () => assert.match(await tip.textContent(), /hidden until you check/));
    assert.doesNotMatch(await tip.textContent(), /\d%/);
    await page.mouse.move(0, 0);
    // Check reveals them: the row's summary with its weights, the table, and labelled cells.
    const radio = page.locator('#quiz input[type=radio]').first();
    if (await radio.count()) await radio.check();
    else await page.getByLabel('Your answer', { exact: true }).fill('0.5');
    await page.getByRole('button', { name: 'Check' }).click();
    await eventually(async () => assert.match(await label(), /%/));
    assert.doesNotMatch(await label(), /hidden/);
    await page.locator('[data-testid=inspector-table]').waitFor();
    assert.equal(await page.getByTestId('positions-help').isVisible(), true);
    assert.match(await regime.textContent(), /largest weight/);
    await eventually(async () => assert.notEqual(await pixels(), bare, 'the cells get their labels back'));
    // The next question hides them again.
    await next(page);
    await eventually(async () => assert.match(await label(), /Numbers are hidden/));
    assert.equal(await page.locator('[data-testid=inspector-table]').count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('with a Break-it mistake on, the questions are about the broken heatmap shown', { timeout: 120_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, `${QUERY}&broken=triu`, { file: 'practice.html' });
    await revealAnswer(page);
    const json = await downloadJson(page);
    await page.reload();
    await page.locator('#quiz fieldset').waitFor();
    const shown = json.heads[0].weights;
    const W = weights(json, 0, json.temperature, new Set(['triu']));
    assert.ok(maxDiff(W, shown) < 1e-12, 'the JSON holds the broken weights');
    const kinds = new Set();
    const first = await current(page);
    for (let k = 0; k < first.n; k++) {
      const q = await current(page);
      kinds.add(q.kind);
      assert.ok(!['half-tau', 'hot-limit', 'spread-head', 'equal-columns'].includes(q.kind), `${q.kind} assumes correct attention`);
      if (q.kind === 'first-row') {
        assert.match(q.legend, /the broken heatmap above/);
        const got = await answer(page, { number: W[0][0].toFixed(4) });
        assert.ok(got.verdict.startsWith('Right.'), got.verdict);
        assert.match(got.number, /correct attention's: 1\.0000/);
        assert.match(got.text, /This number is read off the broken heatmap \(The wrong triangle/);
      } else if (q.kind === 'masked-cell') {
        const got = await answer(page, { number: W[q.row][q.key].toFixed(4) });
        assert.ok(got.verdict.startsWith('Right.'), `${q.legend}: ${got.verdict}`);
        assert.ok(W[q.row][q.key] > 0, 'with triu the future cell has weight');
      }
      await next(page);
    }
    assert.ok(kinds.has('first-row') && kinds.has('masked-cell'), [...kinds].join());
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
