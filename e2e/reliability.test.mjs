// Reliability: hostile input in the sentence box and in the link, the Content Security
// Policy, and the panic banner. For every hostile input: no console error, no panic, a clear
// message where something was refused, the previous valid view kept, nothing read as markup.
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp, clickDownload, downloadJson, collectDialogs, eventually, waitForReady } from './harness.mjs';

const app = useApp();

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const chips = (page) => page.locator('.chips .chip').allTextContents();

/** Replace the sentence box's text (set like a paste, so NUL and controls arrive intact) and press Enter. */
async function applySentence(page, text) {
  await page.fill('#sentence', text);
  await page.locator('#sentence').press('Enter');
}

/** The sentence error's text once it is non-empty. */
async function sentenceError(page) {
  await page.waitForFunction(() => document.querySelector('#sentence-error').textContent.trim() !== '');
  return (await page.locator('#sentence-error').textContent()).trim();
}

/** Wait until the chips show exactly `tokens` and no error is shown. */
async function waitForChips(page, tokens) {
  await page.waitForFunction(
    (want) =>
      JSON.stringify([...document.querySelectorAll('.chips .chip')].map((c) => c.textContent)) === want &&
      document.querySelector('#sentence-error').textContent.trim() === '',
    JSON.stringify(tokens),
  );
}

/** What the learner sees: chips, heatmap (label and pixels), inspector, τ, and the link. */
async function view(page) {
  return page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const heatmap = q('canvas.heatmap');
    return {
      chips: [...document.querySelectorAll('.chips .chip')].map((c) => c.textContent),
      label: heatmap.getAttribute('aria-label'),
      pixels: heatmap.toDataURL(),
      caption: q('[data-testid=inspector-table] caption').textContent,
      inspector: q('[data-testid=inspector-table] tbody').textContent,
      tau: q('[data-testid=tau]').textContent,
      url: location.search,
    };
  });
}

/** Number of elements of each kind that injected markup could create. */
const markupCounts = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      ['script', 'img', 'svg', 'iframe', 'b', 'a', 'style'].map((t) => [t, document.getElementsByTagName(t).length]),
    ),
  );

/** Everything that must hold for any view: drawn, no banner, no NaN, sane numbers. */
async function assertHealthy(page, what) {
  const s = await page.evaluate(() => ({
    ready: document.querySelector('canvas.heatmap')?.dataset.ready,
    banner: document.querySelectorAll('#panic-banner').length,
    chips: document.querySelectorAll('.chips .chip').length,
    label: document.querySelector('canvas.heatmap').getAttribute('aria-label'),
    tau: document.querySelector('[data-testid=tau]').textContent,
    slider: Number(document.querySelector('#temperature').value),
    // Everything but the notices (which quote the refused value, e.g. “NaN”).
    text: document.body.innerText.replace(document.querySelector('[data-testid=notices]')?.innerText ?? '', ''),
  }));
  assert.equal(s.ready, 'true', `${what}: heatmap drawn`);
  assert.equal(s.banner, 0, `${what}: no panic banner`);
  assert.ok(s.chips >= 1 && s.chips <= 64, `${what}: ${s.chips} chips`);
  assert.match(s.label, new RegExp(`: ${s.chips} query tokens by ${s.chips} key tokens`), what);
  const tau = Number(s.tau);
  assert.ok(Number.isFinite(tau) && tau >= 0.01 && tau <= 100, `${what}: τ = ${s.tau}`);
  assert.ok(Math.abs(s.slider - Math.log10(tau)) < 0.01, `${what}: slider ${s.slider} matches τ ${tau}`);
  assert.doesNotMatch(s.text, /\bNaN\b|\binfinity\b|undefined/i, `${what}: no NaN/undefined on the page`);
}

const noticeItems = (page) => page.locator('[data-testid=notices] li').allTextContents();

// ---------------------------------------------------------------------------
// Sentence box
// ---------------------------------------------------------------------------

test('sentence box: hostile input is refused with a message or shown as plain text', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  const dialogs = collectDialogs(page);
  try {
    await app.open(page);
    await applySentence(page, 'one two three');
    await waitForChips(page, ['one', 'two', 'three']);
    // The link is written 200–400 ms after the last change: the view kept includes it.
    await eventually(async () => assert.equal(new URL(page.url()).searchParams.get('s'), 'one two three'));
    const kept = await view(page);
    const markupBefore = await markupCounts(page);

    // Refused: each gets its message and the previous view (chips, heatmap pixels, link) stays.
    const refused = [
      ['10,000 characters', 'word '.repeat(2_000), /10000 characters; the limit is 1000/],
      ['only white space', ' \t\u3000\u00a0 \u2028 ', /empty/i],
      ['only NUL and control characters', '\u0000\u0001\u0007\u001b\u007f\u0085', /empty/i],
      ['500 emoji tokens', Array(500).fill('🐈').join(' '), /500 tokens; the limit is 64/],
    ];
    for (const [what, text, message] of refused) {
      await applySentence(page, text);
      assert.match(await sentenceError(page), message, what);
      assert.equal(await page.getAttribute('#sentence', 'aria-invalid'), 'true', what);
      await page.waitForTimeout(250);
      assert.deepEqual(await view(page), kept, `${what}: the previous view is kept`);
      await assertHealthy(page, what);
    }

    // Accepted: punctuation only, controls between words, mixed direction, markup — all as text.
    const accepted = [
      ['only punctuation', '?!…,;:«»', ['?', '!', '…', ',', ';', ':', '«', '»']],
      ['NUL and controls between words', 'The\u0000cat\u0007sat\u001bon\u007fthe\tmat', ['The', 'cat', 'sat', 'on', 'the', 'mat']],
      ['mixed right-to-left text', 'The cat قال שלום to the mat .', ['The', 'cat', 'قال', 'שלום', 'to', 'the', 'mat', '.']],
      ['a script element', '<script>alert(1)</script>', ['<', 'script', '>', 'alert', '(', '1', ')', '<', '/', 'script', '>']],
      ['an onerror image', '"><img src=x onerror=alert(2)>', ['"', '>', '<', 'img', 'src', '=', 'x', 'onerror', '=', 'alert', '(', '2', ')', '>']],
      ['entities and svg', '&lt;b&gt; <svg/onload=alert(3)>', ['&', 'lt', ';', 'b', '&', 'gt', ';', '<', 'svg', '/', 'onload', '=', 'alert', '(', '3', ')', '>']],
    ];
    for (const [what, text, tokens] of accepted) {
      await applySentence(page, text);
      await waitForChips(page, tokens);
      assert.equal(await page.getAttribute('#sentence', 'aria-invalid'), 'false', what);
      const inspectorKeys = await page.locator('[data-testid=inspector-table] tbody th').allTextContents();
      assert.deepEqual(inspectorKeys, tokens.slice(0, inspectorKeys.length), `${what}: inspector keys are the tokens`);
      await eventually(async () => assert.equal(new URL(page.url()).searchParams.get('s'), text, `${what}: the link carries the exact sentence`));
      await assertHealthy(page, what);
    }
    // The JSON export keeps the last sentence verbatim.
    assert.equal((await downloadJson(page)).sentence, '&lt;b&gt; <svg/onload=alert(3)>');

    await page.waitForTimeout(300); // a wrongly created <img>/<svg> would fire its handler by now
    assert.deepEqual(await markupCounts(page), markupBefore, 'no element was injected');
    assert.deepEqual(dialogs, [], 'no dialog opened');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------

const DEFAULT_CHIPS = ['The', 'cat', 'sat', 'on', 'the', 'mat', '.'];
const longS = 'w'.repeat(10_000);

/**
 * [what, query, expected notices (RegExps, in any order; the count must match), checks on the view].
 * Lone surrogates decode to U+FFFD (one per invalid byte), a visible character: accepted.
 */
const LINKS = [
  ['lone surrogate', 's=%ED%A0%80', [], { chips: ['\ufffd\ufffd\ufffd'] }],
  ['lone surrogates in every parameter', 's=a+%ED%B0%80&tau=%ED%A0%80&seed=%ED%A0%80&step=%ED%A0%80',
    [/temperature “\ufffd{3}”/, /seed “\ufffd{3}”/, /step=“\ufffd{3}”/], { chips: ['a', '\ufffd\ufffd\ufffd'], tau: '1.00' }],
  ['percent-encoding garbage', 's=%E0%A4%A&tau=%ZZ&%%%=1&seed=%F0%9F&heads=%&pos=%C0%80',
    [/temperature “%ZZ”/, /seed “\ufffd+”/, /heads=“%”/, /pos=“\ufffd+”/], { chips: ['\ufffd', '%', 'A'] }],
  ['duplicated and contradicting parameters', 'tau=2&tau=0.5&heads=1&heads=8&head=2&row=9&row=1',
    [/repeats “tau”/, /repeats “heads”/, /repeats “row”/, /head=“2”: there are 1 heads/, /row=“9”: the sentence has 7 tokens/],
    { chips: DEFAULT_CHIPS, tau: '2.00', heading: 'Who attends to whom — one head' }],
  ['a token limit below the default sentence', 'max_tokens=3', [/max_tokens=3: the default sentence has 7 tokens/], { chips: DEFAULT_CHIPS }],
  ['tau=NaN', 'tau=NaN', [/temperature “NaN”/], { tau: '1.00' }],
  ['tau=-1', 'tau=-1', [/temperature “-1”/], { tau: '1.00' }],
  ['tau=0', 'tau=0', [/temperature “0”/], { tau: '1.00' }],
  ['tau=1e308', 'tau=1e308', [/Temperature “1e308” is outside/], { tau: '100.0' }],
  ['tau=-inf', 'tau=-inf', [/temperature “-inf”/], { tau: '1.00' }],
  ['10,000-character s=', `s=${longS}`, [/10000 characters; the limit is 1000/], { chips: DEFAULT_CHIPS }],
  ['500 emoji in s=', `s=${encodeURIComponent(Array(500).fill('🐈').join(' '))}`, [/500 tokens; the limit is 64/], { chips: DEFAULT_CHIPS }],
  ['only controls in s=', 's=%00%01%07%1B', [/empty/], { chips: DEFAULT_CHIPS }],
  ['markup in s=', `s=${encodeURIComponent('<img src=x onerror=alert(1)><script>alert(2)</script>')}`, [],
    { chips: ['<', 'img', 'src', '=', 'x', 'onerror', '=', 'alert', '(', '1', ')', '>', '<', 'script', '>', 'alert', '(', '2', ')', '<', '/', 'script', '>'] }],
  ['bidi override in a refused value', 'step=%E2%80%AEgnillacs', [/step=“gnillacs”/], {}],
  ['markup in a refused value', `step=${encodeURIComponent('<b>x</b>')}`, [/step=“<b>x<\/b>”/], {}],
];

test('links: mangled parameters give a valid view, with a notice for each refusal', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  const dialogs = collectDialogs(page);
  try {
    await app.open(page);
    const markupBefore = await markupCounts(page);
    for (const [what, query, expected, checks] of LINKS) {
      await app.open(page, query);
      await assertHealthy(page, what);
      const items = await noticeItems(page);
      assert.equal(items.length, expected.length, `${what}: notices ${JSON.stringify(items)}`);
      for (const re of expected) assert.ok(items.some((t) => re.test(t)), `${what}: a notice ${re} in ${JSON.stringify(items)}`);
      for (const item of items) {
        assert.ok([...item].length <= 400, `${what}: notice of ${item.length} chars`);
        assert.doesNotMatch(item, /[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/, `${what}: no invisible characters in a notice`);
      }
      if (checks.chips) assert.deepEqual(await chips(page), checks.chips, `${what}: chips`);
      if (checks.tau) assert.equal(await page.locator('[data-testid=tau]').textContent(), checks.tau, `${what}: τ`);
      if (checks.heading) assert.equal(await page.locator('#heatmap-title').textContent(), checks.heading, what);
      assert.deepEqual(await markupCounts(page), markupBefore, `${what}: no element injected`);
      // The address bar is rewritten to the view shown, which reopens without notices.
      await page.waitForFunction(() => location.search.includes('&lab_d='));
      const fixed = page.url();
      assert.ok(fixed.length < 13_000, `${what}: rewritten link of ${fixed.length} chars`);
      const shown = await view(page);
      await page.goto(fixed);
      await waitForReady(page);
      assert.equal(await page.locator('[data-testid=notices]').count(), 0, `${what}: the rewritten link is clean`);
      const again = await view(page);
      assert.deepEqual({ ...again, url: null }, { ...shown, url: null }, `${what}: the rewritten link shows the same view`);
    }
    assert.deepEqual(dialogs, [], 'no dialog opened');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Content Security Policy
// ---------------------------------------------------------------------------

/** Records every CSP violation in window.__cspViolations from the first byte of the page. */
const recordViolations = () => {
  window.__cspViolations = [];
  document.addEventListener(
    'securitypolicyviolation',
    (e) => window.__cspViolations.push(`${e.effectiveDirective} blocked ${e.blockedURI || 'inline'} (${e.sample})`),
    true,
  );
};

test('CSP: the policy ships in index.html and a full session causes no violation', { timeout: 60_000 }, async () => {
  // The served index.html: the policy's directives, and no inline script but the one the build
  // writes in (assets/first-view.js, the embed view before the first paint), named by its hash.
  const html = await (await fetch(`${app.url}/`)).text();
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  const inline = scripts.filter(([, , body]) => body.trim() !== '');
  assert.equal(inline.length, 1, `one inline script: ${inline.map(([whole]) => whole.slice(0, 80))}`);
  const [[, inlineAttrs, inlineBody]] = inline;
  assert.equal(inlineAttrs.trim(), '', 'a classic script');
  assert.match(inlineBody, /classList\.add\('embed-view'\)/, 'it is assets/first-view.js');
  const inlineHash = `'sha256-${createHash('sha256').update(inlineBody).digest('base64')}'`;
  // The style sheet, written in the same way.
  const styles = [...html.matchAll(/<style\b([^>]*)>([\s\S]*?)<\/style>/gi)];
  assert.equal(styles.length, 2, 'two style elements: the style sheets');
  assert.match(styles[0][2], /\.site-header\{/, 'the first is style/main.css');
  assert.match(styles[1][2], /\.static-heatmap\{/, 'the second is style/heatmap-pages.css');
  const styleHashes = styles.map(([, , text]) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`);
  assert.doesNotMatch(html, /<link\b[^>]*rel="stylesheet"/, 'no style sheet to fetch before the first paint');
  const external = scripts.filter(([, , body]) => body.trim() === '');
  assert.ok(external.length >= 1, 'the bootstrap script is there');
  for (const [whole, attrs] of external) {
    // Relative to the page (dist/ works under any path, docs/guide.md "Deploying a copy"), so same-origin.
    assert.match(attrs, /\bsrc="\.\/[^"/]+\.js"/, `external same-origin script: ${whole}`);
  }

  const { context, page, consoleLog } = await app.newPage();
  await page.addInitScript(recordViolations);
  try {
    await app.open(page);
    const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    assert.deepEqual(directives['default-src'], ["'none'"]);
    assert.deepEqual(directives['script-src'], ["'self'", "'wasm-unsafe-eval'", inlineHash]);
    assert.deepEqual(directives['style-src'], ["'self'", ...styleHashes]);
    assert.deepEqual(directives['object-src'], ["'none'"]);
    assert.deepEqual(directives['base-uri'], ["'none'"]);
    assert.deepEqual(directives['worker-src'], ["'self'"]);
    assert.deepEqual(directives['manifest-src'], ["'self'"]);
    assert.doesNotMatch(csp, /https?:|\*|'unsafe-eval'/, 'no remote origin, no wildcard, no eval');
    for (const [name, values] of Object.entries(directives)) {
      if (name !== 'style-src-attr') assert.ok(!values.includes("'unsafe-inline'"), `${name} allows no inline code`);
    }

    // A full session: every control, every lesson step, hover, keyboard, downloads.
    const slider = page.locator('#temperature');
    await slider.focus();
    for (let i = 0; i < 20; i++) await page.keyboard.press(i < 10 ? 'ArrowLeft' : 'ArrowRight');
    await page.getByRole('button', { name: 'unscaled' }).click();
    await page.getByRole('button', { name: 'τ = 1', exact: true }).click();
    await applySentence(page, 'A small dog ran home .');
    await waitForChips(page, ['A', 'small', 'dog', 'ran', 'home', '.']);
    await page.fill('#seed', '42');
    await page.locator('#seed').dispatchEvent('change');
    await page.getByRole('button', { name: 'New seed' }).click();
    await page.selectOption('#heads', '8');
    await page.locator('.thumbs .thumb').nth(3).click();
    await page.locator('#positions').check();
    const heatmap = page.locator('canvas.heatmap').first();
    await heatmap.scrollIntoViewIfNeeded();
    const box = await heatmap.boundingBox();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 30);
    await page.locator('[role=tooltip]').waitFor();
    await heatmap.focus();
    for (const key of ['ArrowUp', 'ArrowRight', 'ArrowRight', 'Home', 'End', 'Escape']) await page.keyboard.press(key);
    for (const tab of ['#tab-average', '#tab-scaling', '#tab-attention']) {
      await page.click(tab);
      await page.waitForFunction((id) => document.querySelector('#lesson-panel')?.dataset.step === id.slice('#tab-'.length), tab);
      if (tab === '#tab-scaling') await page.selectOption('#lab-d', '256');
    }
    for (const [button, name] of [['Download JSON', 'attention.json'], ['Download CSV', /\.csv$/], ['Download PNG', /\.png$/]]) {
      // clickDownload throws if the download fails (as it would if the policy blocked it).
      const saved = await clickDownload(page, button);
      if (typeof name === 'string') assert.equal(saved.name, name);
      else assert.match(saved.name, name);
    }
    await assertHealthy(page, 'after a full session');
    await page.waitForTimeout(300);
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'no CSP violation');
    consoleLog.assertClean();

    // Control: the listener works and the policy really blocks inline script.
    const ran = await page.evaluate(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true;';
      document.body.append(s);
      await new Promise((r) => setTimeout(r, 100));
      return window.__inlineRan === true;
    });
    assert.equal(ran, false, 'an injected inline script does not run');
    const violations = await page.evaluate(() => window.__cspViolations);
    assert.equal(violations.length, 1, violations.join('\n'));
    assert.match(violations[0], /^script-src-elem blocked inline/);
    const refusal = `Executing inline script violates the following Content Security Policy directive '${['script-src', ...directives['script-src']].join(' ')}'`;
    consoleLog.assertClean({ ignore: [refusal] });
    assert.equal(consoleLog.errors.length, 1, 'exactly the one refusal was logged');
  } finally {
    await context.close();
  }
});

// ---------------------------------------------------------------------------
// Panic banner
// ---------------------------------------------------------------------------

test('panic: ?debug_panic=1 shows the banner with the message and working Reload / Reset links', { timeout: 60_000 }, async () => {
  const { context, page, consoleLog } = await app.newPage();
  try {
    await app.open(page, 'debug_panic=1&tau=2');
    const banner = page.locator('#panic-banner');
    await banner.waitFor();
    assert.equal(await banner.getAttribute('role'), 'alert');
    assert.ok(await banner.isVisible(), 'the banner is visible');
    const text = await banner.textContent();
    assert.match(text, /Something went wrong — reload or reset the view\./);
    assert.match(text, /debug_panic=1: a deliberate panic to test the error banner/);
    const reload = banner.getByRole('link', { name: 'Reload' });
    const reset = banner.getByRole('link', { name: 'Reset view' });
    assert.equal(await reload.getAttribute('href'), `${app.url}/?debug_panic=1&tau=2`);
    assert.equal(await reset.getAttribute('href'), '/');
    // Exactly the panic's report (the hook's console.error; then the abort traps as `unreachable`).
    assert.equal(consoleLog.errors.length, 1, consoleLog.errors.join('\n'));
    assert.match(consoleLog.errors[0], /panicked at src\/app\.rs:\d+:\d+:\ndebug_panic=1: a deliberate panic/);
    assert.equal(consoleLog.pageErrors.length, 1, consoleLog.pageErrors.join('\n'));
    assert.match(consoleLog.pageErrors[0], /^RuntimeError: unreachable/);
    consoleLog.assertClean({ ignore: [/panicked at src\/app\.rs.*\n?debug_panic=1: a deliberate panic/, /^pageerror: RuntimeError: unreachable/] });

    // "Reset view" leads to a fresh default page: no banner, clean console.
    consoleLog.clear();
    await Promise.all([page.waitForURL(`${app.url}/`), reset.click()]);
    await waitForReady(page);
    assert.equal(await page.locator('#panic-banner').count(), 0);
    await assertHealthy(page, 'after Reset view');
    assert.equal(await page.locator('[data-testid=tau]').textContent(), '1.00');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
