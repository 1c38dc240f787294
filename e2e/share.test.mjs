// The learner's own sentence and seed, the URL state, downloads, keyboard-only
// use and a 360 px touch viewport. Values are checked against the page's JSON download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { useApp, clickDownload, downloadJson, downloadJsonText, downloadText, eventually, collectDialogs, twoFrames, waitForReady } from './harness.mjs';
import { clickHeatmapRow } from './heatmap_geometry.mjs';

const app = useApp();

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const chips = (page) => page.locator('.chips .chip').allTextContents();

async function inspectorRow(page) {
  const caption = await page.locator('[data-testid=inspector-table] caption').textContent();
  const m = caption.match(/Attention weights of “(.*)” \(row (\d+)\)/s);
  assert.ok(m, `unexpected caption: ${caption}`);
  return { token: m[1], row: Number(m[2]) };
}

const waitCaptionRow = (page, row) =>
  page.waitForFunction(
    (r) => document.querySelector('[data-testid=inspector-table] caption').textContent.includes(`(row ${r})`),
    row,
  );

/** Replace the sentence box's text by typing, then press Enter (keyboard only). */
async function typeSentence(page, text) {
  await page.locator('#sentence').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  if (text) await page.keyboard.insertText(text);
  await page.keyboard.press('Enter');
}

/** Minimal RFC 4180 parser (quoted fields, doubled quotes). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Everything a learner sees in the controls and main view (for "same view" comparisons). */
async function viewSnapshot(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    return {
      sentence: q('#sentence').value,
      chips: [...document.querySelectorAll('.chips .chip')].map((c) => c.textContent),
      selectedChip: [...document.querySelectorAll('.chips .chip')].findIndex((c) => c.classList.contains('selected')),
      slider: q('#temperature').value,
      tau: q('[data-testid=tau]').textContent,
      divisor: q('[data-testid=divisor]').textContent,
      seed: q('#seed').value,
      heads: q('#heads').value,
      positions: q('#positions').checked,
      heading: q('#heatmap-title').textContent,
      pressedThumb: [...document.querySelectorAll('.thumbs .thumb')].findIndex((b) => b.getAttribute('aria-pressed') === 'true'),
      caption: q('[data-testid=inspector-table] caption').textContent,
      inspector: q('[data-testid=inspector-table] tbody').textContent,
      maxWeight: q('[data-testid=max-weight]').textContent,
      step: q('#lesson-panel').dataset.step,
      labD: q('#lab-d')?.value ?? null,
      heatmapLabel: q('canvas.heatmap').getAttribute('aria-label'),
      heatmapPixels: q('canvas.heatmap').toDataURL(),
    };
  });
}

// ---------------------------------------------------------------------------
// Sentence box
// ---------------------------------------------------------------------------

test('sentence box: Enter and Apply, the 64-token limit and empty input keep the view', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const heatmap = page.locator('canvas.heatmap').first();
    const error = page.locator('#sentence-error');
    assert.equal(await page.locator('label[for=sentence]').textContent(), 'Sentence');
    assert.deepEqual(await chips(page), ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);

    await typeSentence(page, 'A small dog ran home');
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 5);
    assert.deepEqual(await chips(page), ['A', 'small', 'dog', 'ran', 'home']);
    assert.match(await heatmap.getAttribute('aria-label'), /5 query tokens by 5 key tokens/);
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'home', row: 5 }, 'row clamped into the new sentence'));
    assert.equal((await error.textContent()).trim(), '');

    await page.fill('#sentence', 'one two three');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 3);
    assert.deepEqual(await chips(page), ['one', 'two', 'three']);
    assert.match(await heatmap.getAttribute('aria-label'), /3 query tokens by 3 key tokens/);
    assert.equal((await downloadJson(page)).tokens.length, 3);

    // 65 tokens: refused, the limit is named, the previous view stays.
    const before = { chips: await chips(page), label: await heatmap.getAttribute('aria-label'), url: null };
    await eventually(async () => assert.equal(new URL(page.url()).searchParams.get('s'), 'one two three'));
    before.url = page.url();
    const words65 = Array.from({ length: 65 }, (_, i) => `w${i + 1}`).join(' ');
    await typeSentence(page, words65);
    await page.waitForFunction(() => document.querySelector('#sentence-error').textContent.trim() !== '');
    const tooMany = await error.textContent();
    assert.match(tooMany, /64/);
    assert.match(tooMany, /65 tokens/);
    assert.equal(await page.getAttribute('#sentence', 'aria-invalid'), 'true');
    assert.deepEqual(await chips(page), before.chips);
    assert.equal(await heatmap.getAttribute('aria-label'), before.label);
    await page.waitForTimeout(300);
    assert.equal(page.url(), before.url, 'refused sentence is not written to the URL');
    // Exactly 64 is fine.
    await typeSentence(page, words65.replace(/ w65$/, ''));
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 64);
    assert.equal((await error.textContent()).trim(), '');
    assert.equal(await page.getAttribute('#sentence', 'aria-invalid'), 'false');
    assert.match(await heatmap.getAttribute('aria-label'), /64 query tokens by 64 key tokens/);
    await typeSentence(page, 'one two three');
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 3);

    // Empty and whitespace-only input: a message, not an empty chart.
    for (const blank of ['', '   \t  ']) {
      await typeSentence(page, blank);
      await page.waitForFunction(() => document.querySelector('#sentence-error').textContent.trim() !== '');
      assert.match(await error.textContent(), /empty/i, `message for ${JSON.stringify(blank)}`);
      assert.deepEqual(await chips(page), ['one', 'two', 'three']);
      assert.match(await heatmap.getAttribute('aria-label'), /3 query tokens/);
      assert.equal(await heatmap.getAttribute('data-ready'), 'true');
      await typeSentence(page, 'one two three'); // clears the error again
      await page.waitForFunction(() => document.querySelector('#sentence-error').textContent.trim() === '');
    }
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('sentence box: Unicode is kept, markup stays text', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  const dialogs = collectDialogs(page);
  try {
    await app.open(page, 'step=attention');
    const imgsBefore = await page.locator('img').count();
    const cases = [
      ['🐈‍⬛ sat 🙂', ['🐈‍⬛', 'sat', '🙂']],
      ['猫が座った。', ['猫が座った', '。']],
      ['שלום עולם', ['שלום', 'עולם']],
      ['cafe\u0301 noir', ['cafe\u0301', 'noir']],
      ['<img src=x onerror=alert(1)>', ['<', 'img', 'src', '=', 'x', 'onerror', '=', 'alert', '(', '1', ')', '>']],
    ];
    for (const [sentence, tokens] of cases) {
      await typeSentence(page, sentence);
      await page.waitForFunction(
        (n) => document.querySelectorAll('.chips .chip').length === n && document.querySelector('#sentence-error').textContent.trim() === '',
        tokens.length,
      );
      assert.deepEqual(await chips(page), tokens, `chips for ${sentence}`);
      const json = await downloadJson(page);
      assert.equal(json.sentence, sentence, 'JSON keeps the exact sentence (no normalisation)');
      assert.deepEqual(json.tokens, tokens);
      const keyCells = await page.locator('[data-testid=inspector-table] tbody th').allTextContents();
      assert.deepEqual(keyCells, tokens, `inspector keys for ${sentence}`);
      // The trace updates once it is near the viewport (it skips work while scrolled away).
      await page.getByTestId('trace-strips').scrollIntoViewIfNeeded();
      await eventually(async () => {
        const traceKeys = await page.locator('[data-testid=trace-table] tbody th').allTextContents();
        assert.deepEqual(traceKeys, tokens, `trace keys for ${sentence}`);
      });
      assert.match(await page.locator('canvas.heatmap').first().getAttribute('aria-label'), new RegExp(`${tokens.length} query tokens`));
    }
    // The markup case: literal text, nothing interpreted.
    await page.waitForTimeout(300); // give a (wrongly) created <img> time to fail and fire onerror
    assert.equal(await page.locator('img').count(), imgsBefore, 'no <img> element was created');
    assert.equal(await page.locator('.chips img, [data-testid=inspector-table] img, #lesson-panel img').count(), 0);
    assert.deepEqual(dialogs, [], 'no dialog fired');
    assert.equal((await page.locator('.chips').textContent()), '<imgsrc=xonerror=alert(1)>');

    // The same markup arriving through a link is text too.
    await app.open(page, `s=${encodeURIComponent('<b>bold</b> <script>alert(2)</script>')}`);
    assert.equal(await page.locator('[data-testid=notices]').count(), 0);
    assert.equal(await page.locator('.chips b, .chips script').count(), 0);
    assert.ok((await chips(page)).includes('script'));
    await page.waitForTimeout(200);
    assert.deepEqual(dialogs, []);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Seed
// ---------------------------------------------------------------------------

test('seed: 42 changes the weights, New seed moves on, going back reproduces them exactly', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    assert.equal(await page.inputValue('#seed'), '1337');
    const original = await downloadJsonText(page);
    const orig = JSON.parse(original);
    assert.equal(orig.seed, 1337);

    await page.fill('#seed', '42');
    await page.keyboard.press('Tab'); // commit (change event)
    await page.waitForFunction(() => new URL(location.href).searchParams.get('seed') === '42');
    const s42 = await downloadJson(page);
    assert.equal(s42.seed, 42);
    assert.notDeepEqual(s42.heads[0].w_q, orig.heads[0].w_q);
    assert.notDeepEqual(s42.heads[0].weights, orig.heads[0].weights);

    const captionBefore = await page.locator('[data-testid=inspector-table] tbody').first().textContent();
    await page.getByRole('button', { name: 'New seed' }).click();
    await page.waitForFunction(() => document.querySelector('#seed').value !== '42');
    const shown = await page.inputValue('#seed');
    assert.match(shown, /^\d+$/);
    const next = await downloadJson(page);
    assert.equal(String(next.seed), shown, 'the displayed seed is the one used');
    assert.notDeepEqual(next.heads[0].weights, s42.heads[0].weights);
    assert.notEqual(await page.locator('[data-testid=inspector-table] tbody').first().textContent(), captionBefore);

    // Invalid seeds are refused with a message.
    await page.fill('#seed', '-5');
    await page.keyboard.press('Tab');
    await page.waitForFunction(() => document.querySelector('fieldset.model .error').textContent.includes('seed'));
    assert.equal((await downloadJson(page)).seed, next.seed);

    await page.fill('#seed', '1337');
    await page.keyboard.press('Tab');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('seed') === '1337');
    assert.equal(await downloadJsonText(page), original, 'seed 1337 reproduces the original download byte for byte');
    // Reproducible across page loads too.
    await app.open(page, 'seed=42');
    assert.deepEqual((await downloadJson(page)).heads, s42.heads);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// URL state
// ---------------------------------------------------------------------------

test('URL: the whole state round-trips into a fresh page', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  let fresh;
  try {
    await app.open(page);
    // Sentence (keyboard), heads and head, seed, τ (mark + slider keys), row (heatmap keys),
    // positions, step and the lab's head size.
    await typeSentence(page, 'Der Hund sah den Hund .');
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 6);
    await page.selectOption('#heads', '4');
    await page.locator('.thumbs .thumb').nth(2).click();
    await page.fill('#seed', '7');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: 'unscaled' }).click();
    assert.equal(await page.locator('[data-testid=tau]').textContent(), (1 / Math.sqrt(8)).toFixed(3));
    await page.locator('#temperature').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    const tauText = await page.locator('[data-testid=tau]').textContent();
    assert.notEqual(tauText, (1 / Math.sqrt(8)).toFixed(3), 'slider keys changed τ');
    await page.locator('canvas.heatmap').first().focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await waitCaptionRow(page, 3);
    await page.check('#positions');
    await page.locator('#tab-scaling').click();
    await page.selectOption('#lab-d', '64');
    // The link is written 200 ms after the last change (debounced); on a busy machine the page may
    // take longer to get there, so wait for the last change to reach it rather than a fixed time.
    await page.waitForFunction(() => new URL(location.href).searchParams.get('lab_d') === '64', null, { timeout: 10_000 });

    const url = new URL(page.url());
    const p = url.searchParams;
    assert.equal(p.get('s'), 'Der Hund sah den Hund .');
    assert.equal(p.get('seed'), '7');
    assert.equal(p.get('heads'), '4');
    assert.equal(p.get('head'), '3');
    assert.equal(p.get('row'), '3');
    assert.equal(p.get('step'), 'scaling');
    assert.equal(p.get('lab_d'), '64');
    assert.equal(p.get('pos'), '1');
    const tau = Number(p.get('tau'));
    assert.ok(tau > 0.3 && tau < 1 / Math.sqrt(8), `tau in URL: ${p.get('tau')}`);
    const tauDigits = tau >= 1 ? 2 : 3;
    assert.equal(tau.toFixed(tauDigits), tauText);

    const json = await downloadJsonText(page);
    const parsed = JSON.parse(json);
    assert.equal(parsed.temperature, tau, 'URL carries τ exactly');
    const snap = await viewSnapshot(page);

    // A fresh context (no shared storage) opening the link sees the same view.
    fresh = await app.newPage();
    const res = await fresh.page.goto(url.href);
    assert.ok(res.ok());
    await waitForReady(fresh.page);
    await fresh.page.locator('[data-testid=lab-readout]').waitFor();
    assert.equal(await fresh.page.locator('[data-testid=notices]').count(), 0, 'a valid link has no notices');
    assert.equal(await downloadJsonText(fresh.page), json, 'same JSON, byte for byte');
    const snap2 = await viewSnapshot(fresh.page);
    assert.deepEqual({ ...snap2, heatmapPixels: null }, { ...snap, heatmapPixels: null });
    assert.equal(snap2.heatmapPixels, snap.heatmapPixels, 'same heatmap pixels');
    assert.equal(snap2.heading, 'Who attends to whom — head 3 of 4');
    assert.equal(snap2.positions, true);
    assert.equal(snap2.labD, '64');
    await eventually(async () => assert.equal(new URL(fresh.page.url()).search, url.search, 'restored view writes the same link'));
    fresh.consoleLog.assertClean();
    consoleLog.assertClean();
  } finally {
    await fresh?.context.close();
    await context.close();
  }
});

test('URL: replaceState only — dragging the slider does not grow history', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await page.addInitScript(() => {
      window.__hist = { push: 0, replace: 0 };
      const push = history.pushState.bind(history);
      const replace = history.replaceState.bind(history);
      history.pushState = (...a) => {
        window.__hist.push++;
        return push(...a);
      };
      history.replaceState = (...a) => {
        window.__hist.replace++;
        return replace(...a);
      };
    });
    await app.open(page);
    // The view's first link write (the whole view, 200–400 ms after the start) is not the drag's.
    await eventually(async () => assert.notEqual(new URL(page.url()).searchParams.get('tau'), null));
    const startLength = await page.evaluate(() => history.length);
    const startTau = new URL(page.url()).searchParams.get('tau');
    const replacesBefore = await page.evaluate(() => window.__hist.replace);

    const box = await page.locator('#temperature').boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.down();
    await page.evaluate(() => {
      window.__slider = new Set();
      document.querySelector('#temperature').addEventListener('input', (e) => window.__slider.add(e.target.value));
    });
    // One fast drag (20 intermediate moves), well within the 200 ms debounce between moves.
    await page.mouse.move(box.x + box.width / 6, y, { steps: 20 });
    await page.mouse.up();
    const inputs = await page.evaluate(() => window.__slider.size);
    assert.ok(inputs >= 10, `τ followed the drag (${inputs} distinct slider values)`);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    // The debounced write of the last change: the link holds the τ shown.
    const shown = await page.locator('[data-testid=tau]').textContent();
    const linkTau = () => Number(new URL(page.url()).searchParams.get('tau'));
    await eventually(async () => assert.equal(linkTau().toFixed(linkTau() >= 1 ? 2 : 3), shown, 'URL holds the final τ'));

    const hist = await page.evaluate(() => ({ length: history.length, ...window.__hist }));
    assert.equal(hist.length, startLength, 'history length unchanged');
    assert.equal(hist.push, 0, 'no pushState');
    const replaces = hist.replace - replacesBefore;
    assert.ok(replaces >= 1 && replaces <= 3, `debounced replaceState calls during the drag: ${replaces}`);
    assert.notEqual(new URL(page.url()).searchParams.get('tau'), startTau);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

test('URL: malformed parameters give notices and the default view', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const defaults = await downloadJsonText(page);
    const defaultSnap = await viewSnapshot(page);

    await app.open(page, 'tau=abc&heads=3&row=99&seed=-5&step=nope');
    const notices = page.locator('[data-testid=notices]');
    await notices.waitFor();
    const items = await notices.locator('li').allTextContents();
    assert.equal(items.length, 5, items.join('\n'));
    for (const [what, re] of [
      ['tau', /temperature “abc”/i],
      ['heads', /heads=“3”/],
      ['row', /row=“99”/],
      ['seed', /seed “-5”/],
      ['step', /step=“nope”/],
    ]) {
      assert.ok(items.some((t) => re.test(t)), `a notice about ${what}: ${items.join(' | ')}`);
    }
    assert.equal(await downloadJsonText(page), defaults, 'default model');
    assert.deepEqual(await viewSnapshot(page), defaultSnap, 'default view');
    await eventually(async () => {
      const fixed = new URL(page.url()).searchParams;
      assert.deepEqual(
        [fixed.get('tau'), fixed.get('heads'), fixed.get('row'), fixed.get('seed'), fixed.get('step')],
        ['1', '2', '6', '1337', 'average'],
        'the address bar is rewritten to the view shown',
      );
    });
    await notices.getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await notices.count(), 0);

    // More broken links: each falls back with its own notice, never a panic.
    const long = Array.from({ length: 65 }, (_, i) => `x${i}`).join(' ');
    await app.open(page, `s=${encodeURIComponent(long)}&tau=1e9&head=9&pos=maybe&lab_d=3&tau=2`);
    const items2 = await notices.locator('li').allTextContents();
    assert.equal(items2.length, 6, items2.join('\n'));
    assert.ok(items2.some((t) => /64/.test(t)), 'the sentence notice names the limit');
    assert.equal(await page.locator('[data-testid=tau]').textContent(), '100.0', 'τ clamped to the slider');
    assert.deepEqual(await chips(page), ['The', 'cat', 'sat', 'on', 'the', 'mat', '.']);
    await app.open(page, `s=${encodeURIComponent('   ')}&row=0&heads=8&head=8`);
    const items3 = await notices.locator('li').allTextContents();
    assert.equal(items3.length, 2, items3.join('\n'));
    assert.equal(await page.locator('#heatmap-title').textContent(), 'Who attends to whom — head 8 of 8');
    assert.equal(await page.locator('#panic-banner').count(), 0);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------

test('downloads: PNG of the heatmap and CSV of the selected head', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    await page.locator('.thumbs .thumb').nth(1).click();
    await page.waitForFunction(() => document.querySelector('#heatmap-title').textContent.endsWith('head 2 of 2'));
    const json = await downloadJson(page);

    const png = await clickDownload(page, 'Download PNG');
    assert.equal(png.name, 'attention.png');
    const bytes = await readFile(await png.download.path());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
    const size = await page.locator('canvas.heatmap').first().evaluate((c) => [c.width, c.height]);
    assert.deepEqual([bytes.readUInt32BE(16), bytes.readUInt32BE(20)], size, 'PNG has the canvas size');
    assert.ok(bytes.length > 5000, `PNG has ${bytes.length} bytes`);

    const csv = await clickDownload(page, 'Download CSV');
    assert.equal(csv.name, 'attention-head2.csv');
    const rows = parseCsv(await downloadText(csv.download));
    assert.deepEqual(rows[0], ['query \\ key', ...json.tokens], 'header row of key tokens');
    assert.equal(rows.length, 1 + 7, 'header + 7 data rows');
    const w = json.heads[1].weights;
    for (let i = 0; i < 7; i++) {
      const r = rows[i + 1];
      assert.equal(r.length, 8);
      assert.equal(r[0], json.tokens[i]);
      for (let j = 0; j < 7; j++) {
        if (j > i) assert.equal(r[j + 1], '', `upper triangle (${i},${j}) is blank`);
        else assert.equal(Number(r[j + 1]), w[i][j], `CSV (${i},${j}) equals head 2's JSON weight`);
      }
      const sum = r.slice(1, i + 2).reduce((a, b) => a + Number(b), 0);
      assert.ok(Math.abs(sum - 1) < 1e-12, `row ${i + 1} sums to 1`);
    }
    assert.notDeepEqual(w, json.heads[0].weights, 'CSV is not head 1');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Keyboard
// ---------------------------------------------------------------------------

test('keyboard only: heatmap rows and cells, slider, checkbox, focus ring', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page);
    const active = () =>
      page.evaluate(() => {
        const a = document.activeElement;
        return a.id || (a.classList.contains('heatmap') ? 'heatmap' : a.tagName.toLowerCase());
      });
    /** Press Tab until the wanted element has focus (fails after 40 presses). */
    const tabTo = async (want) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if ((await active()) === want) return i + 1;
      }
      assert.fail(`Tab never reached ${want}`);
    };
    const outline = (sel) =>
      page.locator(sel).first().evaluate((el) => {
        const s = getComputedStyle(el);
        return { visible: el.matches(':focus-visible'), style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
      });

    // The slider.
    await tabTo('temperature');
    let ring = await outline('#temperature');
    assert.ok(ring.visible && ring.style !== 'none' && ring.width >= 2, `slider focus ring ${JSON.stringify(ring)}`);
    const tau = page.locator('[data-testid=tau]');
    await eventually(async () => assert.equal(await tau.textContent(), '1.00'));
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await tau.textContent(), '1.02'));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await eventually(async () => assert.equal(await tau.textContent(), '0.977'));
    assert.equal(await page.getAttribute('#temperature', 'aria-valuetext'), 'τ = 0.977');
    // The "scaled" mark by keyboard.
    await tabTo('button');
    await tabTo('button');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'τ = 1');
    await page.keyboard.press('Enter');
    await eventually(async () => assert.equal(await tau.textContent(), '1.00'));

    // The positions checkbox by Space.
    await tabTo('positions');
    await page.keyboard.press('Space');
    await eventually(async () => assert.equal(await page.isChecked('#positions'), true));
    assert.match(await page.locator('fieldset.model p.help').textContent(), /different keys/);
    await page.keyboard.press('Space');
    await eventually(async () => assert.equal(await page.isChecked('#positions'), false));

    // The heatmap.
    await tabTo('heatmap');
    ring = await outline('canvas.heatmap');
    assert.ok(ring.visible && ring.style !== 'none' && ring.width >= 2, `heatmap focus ring ${JSON.stringify(ring)}`);
    const heatmap = page.locator('canvas.heatmap').first();
    const live = page.locator('.heatmap-wrap').first().locator('p.visually-hidden[aria-live]');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'mat', row: 6 }));
    await page.keyboard.press('ArrowDown');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: '.', row: 7 }));
    await page.keyboard.press('ArrowDown'); // clamps at the last row
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: '.', row: 7 }));
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'the', row: 5 }));
    await page.keyboard.press('Home');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'The', row: 1 }));
    await page.keyboard.press('End');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: '.', row: 7 }));
    assert.match(await heatmap.getAttribute('aria-label'), /Row 7 “\.” attends most to/);
    await eventually(async () => assert.match(await live.textContent(), /^Row 7 “\.” attends most to “.+” \(\d+\.\d%( each)?\)\.$/));

    // Cell mode: ArrowRight enters at the first key, the live region reads the cell.
    const weights = await page.locator('[data-testid=inspector-table] tbody td:last-child').allTextContents();
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await live.textContent(), `. → The: ${weights[0]}`));
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await live.textContent(), `. → cat: ${weights[1]}`));
    await eventually(async () => assert.match(await live.textContent(), /^\. → cat: \d+\.\d%$/));
    await page.keyboard.press('End'); // rows still move in cell mode; stays on "."
    await page.keyboard.press('ArrowUp');
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'mat', row: 6 }));
    const matWeights = await page.locator('[data-testid=inspector-table] tbody td:last-child').allTextContents();
    await eventually(async () => assert.equal(await live.textContent(), `mat → cat: ${matWeights[1]}`));
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.equal(await live.textContent(), 'mat → .: masked (future)'));
    await page.keyboard.press('Escape');
    await eventually(async () => assert.match(await live.textContent(), /^Row 6 “mat” attends most to/));
    await eventually(async () => assert.deepEqual(await inspectorRow(page), { token: 'mat', row: 6 }, 'Esc keeps the row'));
    assert.equal(await active(), 'heatmap', 'focus stays on the heatmap');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Phone
// ---------------------------------------------------------------------------

test('360 px touch viewport: no horizontal scroll, tap selects a row', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage({
    viewport: { width: 360, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  });
  try {
    await app.open(page);
    const overflow = () =>
      page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    for (const step of ['average', 'softmax', 'attention', 'scaling', 'heads', 'positions']) {
      await page.locator(`#tab-${step}`).tap();
      await page.waitForFunction((s) => document.querySelector('#lesson-panel').dataset.step === s, step);
      await twoFrames(page);
      const o = await overflow();
      assert.ok(o.scroll <= 360, `step ${step}: scrollWidth ${o.scroll} > 360`);
    }
    const heatmap = page.locator('canvas.heatmap').first();
    const box = await heatmap.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 360, `heatmap inside the screen: ${JSON.stringify(box)}`);

    await clickHeatmapRow(page, heatmap, 1, { tap: true });
    await waitCaptionRow(page, 2);
    assert.deepEqual(await inspectorRow(page), { token: 'cat', row: 2 });
    await clickHeatmapRow(page, heatmap, 4, { tap: true });
    await waitCaptionRow(page, 5);
    assert.deepEqual(await inspectorRow(page), { token: 'the', row: 5 });
    // A thumbnail by tap, and a long sentence still fits.
    await page.locator('.thumbs .thumb').nth(1).tap();
    await page.waitForFunction(() => document.querySelector('#heatmap-title').textContent.endsWith('head 2 of 2'));
    await typeSentence(page, 'Supercalifragilisticexpialidocious words keep going and going until the line must wrap somewhere .');
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 13);
    const o = await overflow();
    assert.ok(o.scroll <= 360, `long sentence: scrollWidth ${o.scroll} > 360`);
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
