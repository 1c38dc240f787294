// Browser benchmark — not a test, run by scripts/bench.sh; it drives the app with the e2e
// suite's harness (server, browser, page helpers):
//   node benches/browser.mjs --dist /tmp/dist-bench-z [--out bench.json] [--updates 120] [--loads 7]
//                      [--only default-1h,64t-8h,256t-8h] [--profile [--profile-top 25]]
//
// Release build in headless Chromium, real mouse input through Playwright. For each scenario it
// reads the app's own timing hook, window.__aeTiming = {start, end, settled, updates}: input
// events set `start` (performance.now(), from one capture-phase listener on window, before the app's handlers), every canvas draw sets `end` and counts `updates`, and
// `settled` is taken in the first task after the input's work (all of Leptos' DOM and canvas
// effects run as microtasks before it). After each input the script waits two animation frames
// and records settled - start = the app's compute + draw time for that update (DOM included).
//   - slider: mouse down on the #temperature thumb, then small mouse.move steps back and forth;
//   - rows:   clicks on changing rows of the main heatmap.
// Then, untimed, the DOM changes per update by page section (MutationObserver), and
// navigation start → first canvas[data-ready] (MutationObserver installed by addInitScript).
// Scenarios: default sentence with 1 head; 64 short words with 8 heads; 256 short words with 8 heads
// (`max_tokens=256`, the developer URL flag; 256 words of 2–3 letters fit MAX_SENTENCE_CHARS).
import { writeFile } from 'node:fs/promises';
import { startServer, launchBrowser, newPage, appUrl, sliderGeometry, READY_SELECTOR } from '../e2e/harness.mjs';
import { heatmapLayout, shortWordSentence } from '../e2e/heatmap_geometry.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const DIST = opt('dist', process.env.E2E_DIST);
const OUT = opt('out', null);
const UPDATES = Number(opt('updates', 120));
const LOADS = Number(opt('loads', 7));
const ONLY = opt('only', null); // comma-separated scenario ids, for quick runs
// --profile: record a V8 CPU profile (CDP) of each scenario's slider drag and row clicks and print
// where the app's time goes. Use a dist whose wasm keeps its name section to see Rust function
// names (scripts/bench.sh makes one: target/bench/dist-prof).
const PROFILE = argv.includes('--profile');
const PROFILE_TOP = Number(opt('profile-top', 25));

const SCENARIOS = [
  { id: 'default-1h', label: 'default sentence (7 tokens), 1 head', query: 'heads=1', tokens: 7, heads: 1 },
  // The compare view on (the practice page): a slider step redraws A, B, the difference
  // and its table too.
  {
    id: 'default-compare',
    label: 'default sentence, compare τ = 2 (practice page)',
    file: 'practice.html',
    query: 'cmp=tau%3A2',
    tokens: 7,
    heads: 2,
  },
  {
    id: '64t-8h',
    label: '64 tokens, 8 heads',
    query: `heads=8&s=${encodeURIComponent(shortWordSentence(64))}`,
    tokens: 64,
    heads: 8,
  },
  {
    id: '256t-8h',
    label: '256 tokens, 8 heads',
    query: `max_tokens=256&heads=8&s=${encodeURIComponent(shortWordSentence(256))}`,
    tokens: 256,
    heads: 8,
  },
].filter((s) => !ONLY || ONLY.split(',').includes(s.id));

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return {
    n: s.length,
    median: s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2,
    p95: q(0.95),
    max: s[s.length - 1],
    min: s[0],
  };
}

/** Two animation frames, then the timing hook's current values. */
const afterTwoFrames = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const t = window.__aeTiming || {};
            resolve({ start: t.start ?? null, end: t.end ?? null, settled: t.settled ?? null, updates: t.updates ?? 0 });
          }),
        ),
      ),
  );

/** Runs `input()` and returns settled - start if it produced a new update that drew, else null. */
async function measure(page, input) {
  const before = await page.evaluate(() => ({ ...(window.__aeTiming || {}) }));
  await input();
  const after = await afterTwoFrames(page);
  const fresh = after.start !== null && after.start !== before.start;
  const drew = after.updates > (before.updates ?? 0) && after.end >= after.start;
  const settled = after.settled !== null && after.settled >= after.end;
  return fresh && drew && settled ? after.settled - after.start : null;
}

async function checkScenario(page, sc) {
  const info = await page.evaluate(() => ({
    label: document.querySelector('canvas.heatmap')?.getAttribute('aria-label') || '',
    thumbs: document.querySelectorAll('.thumbs .thumb').length,
    notices: document.querySelector('[data-testid=notices]')?.textContent?.trim() || '',
  }));
  if (!info.label.includes(`${sc.tokens} query tokens`)) {
    throw new Error(`${sc.id}: heatmap does not show ${sc.tokens} tokens: "${info.label}" (notices: ${info.notices})`);
  }
  const expectThumbs = sc.heads > 1 ? sc.heads : 0;
  if (info.thumbs !== expectThumbs) throw new Error(`${sc.id}: ${info.thumbs} thumbnails, expected ${expectThumbs}`);
}

async function sliderDrag(page, n) {
  const { fraction, xAt, y } = await sliderGeometry(page);
  let x = xAt(fraction);
  const samples = [];
  let dir = -1; // first towards colder τ, then back and forth inside the track
  const lo = xAt(0) + 2;
  const hi = xAt(1) - 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  let misses = 0;
  for (let k = 0; samples.length < n && k < n * 4; k++) {
    if (x + dir * 2 < lo || x + dir * 2 > hi) dir = -dir;
    x += dir * 2;
    const t = await measure(page, () => page.mouse.move(x, y, { steps: 1 }));
    if (t === null) misses++;
    else samples.push(t);
  }
  await page.mouse.up();
  return { samples, misses };
}

async function rowClicks(page, sc, n) {
  const canvas = page.locator(READY_SELECTOR).first();
  await canvas.scrollIntoViewIfNeeded();
  const geo = await canvas.evaluate((el) => ({ cssWidth: el.getBoundingClientRect().width }));
  const tokens = await page.evaluate(() => {
    const m = document.querySelector('canvas.heatmap').getAttribute('aria-label').match(/(\d+) query tokens/);
    return Number(m[1]);
  });
  const longest = await page.evaluate(() =>
    Math.max(...Array.from(document.querySelectorAll('[data-testid=inspector-table] tbody th')).map((th) => [...th.textContent].length)),
  );
  const layout = heatmapLayout(geo.cssWidth, tokens, longest, 13.0, true);
  const samples = [];
  let misses = 0;
  // Visit rows in a scrambled order so every click changes the selected row.
  let row = 0;
  for (let k = 0; samples.length < n && k < n * 3; k++) {
    row = (row + 1 + ((k * 7) % Math.max(1, tokens - 1))) % tokens;
    const box = await canvas.boundingBox();
    const x = box.x + layout.gridLeft + layout.cell / 2;
    const y = box.y + layout.rowY(row) + layout.cell / 2;
    const t = await measure(page, () => page.mouse.click(x, y));
    if (t === null) misses++;
    else samples.push(t);
  }
  return { samples, misses };
}

/**
 * DOM churn per update, by page section: a MutationObserver counts added + removed nodes, text
 * changes and attribute changes during `steps` slider moves and `steps` row clicks. Run after the
 * timed passes (the observer's callbacks would otherwise fall inside the timed window).
 */
async function domChurn(page, sc, steps = 20) {
  await page.evaluate(() => {
    window.__aeChurn = {};
    const section = (n) => {
      const el = n.nodeType === 1 ? n : n.parentElement;
      const sec = el?.closest('#lesson-panel, section, header, footer');
      return sec ? sec.id || sec.getAttribute('aria-label') || sec.className : 'other';
    };
    window.__aeChurnObserver = new MutationObserver((recs) => {
      for (const r of recs) {
        const k = `${section(r.target)} (${r.type === 'childList' ? 'nodes' : r.type === 'characterData' ? 'text' : 'attributes'})`;
        window.__aeChurn[k] = (window.__aeChurn[k] || 0) + (r.type === 'childList' ? r.addedNodes.length + r.removedNodes.length : 1);
      }
    });
    window.__aeChurnObserver.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  const take = () =>
    page.evaluate((n) => {
      const out = Object.fromEntries(Object.entries(window.__aeChurn).map(([k, v]) => [k, v / n]));
      window.__aeChurn = {};
      return out;
    }, steps);
  const slider = page.locator('#temperature');
  await slider.scrollIntoViewIfNeeded();
  const box = await slider.boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width / 2, y);
  await page.mouse.down();
  await afterTwoFrames(page);
  await take();
  for (let k = 1; k <= steps; k++) {
    await page.mouse.move(box.x + box.width / 2 - 2 * k, y);
    await afterTwoFrames(page);
  }
  await page.mouse.up();
  const sliderChurn = await take();
  const canvas = page.locator(READY_SELECTOR).first();
  await canvas.scrollIntoViewIfNeeded();
  const cb = await canvas.boundingBox();
  const layout = heatmapLayout(cb.width, sc.tokens, 3, 13.0, true);
  for (let k = 0; k < steps; k++) {
    const row = (k * 5 + 1) % sc.tokens;
    await page.mouse.click(cb.x + cb.width / 2, cb.y + layout.rowY(row) + layout.cell / 2);
    await afterTwoFrames(page);
  }
  const rowsChurn = await take();
  const elements = await page.evaluate(() => {
    window.__aeChurnObserver.disconnect();
    return document.querySelectorAll('*').length;
  });
  return { elements, slider: sliderChurn, rows: rowsChurn };
}

async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  return cdp;
}

/**
 * Stops the profiler and summarises the samples whose call stack runs app code (wasm, or the
 * wasm-bindgen glue): that is the compute+draw work the timing hook measures, without idle time,
 * browser-native painting or Playwright. Self time per function, and inclusive time of the Rust
 * functions (each counted once per sample it is on the stack of).
 */
async function stopProfile(cdp, updates) {
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const isWasm = (cf) => cf.url.endsWith('.wasm') || cf.url.startsWith('wasm://');
  const isApp = (cf) => isWasm(cf) || /attention-explorer-[0-9a-f]+\.js$/.test(cf.url);
  const nameOf = (cf) => (cf.functionName || `(anonymous ${cf.url.split('/').pop()}:${cf.lineNumber})`).replace(/::h[0-9a-f]{16}$/, '');
  const self = new Map();
  const incl = new Map();
  const dt = profile.timeDeltas || [];
  let appMs = 0;
  let totalMs = 0;
  (profile.samples || []).forEach((id, k) => {
    const ms = (dt[k] || 0) / 1000;
    totalMs += ms;
    const stack = [];
    for (let n = id; n !== undefined; n = parent.get(n)) stack.push(byId.get(n).callFrame);
    if (!stack.some(isApp)) return;
    appMs += ms;
    const leaf = nameOf(stack[0]);
    self.set(leaf, (self.get(leaf) || 0) + ms);
    const wrapper = /^js-to-wasm|wasm_bindgen::convert::closures|js_sys::futures::queue|Future>::poll|externref shim/;
    for (const name of new Set(stack.filter((cf) => isWasm(cf) && cf.functionName && !wrapper.test(cf.functionName)).map(nameOf))) {
      incl.set(name, (incl.get(name) || 0) + ms);
    }
  });
  const rank = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, PROFILE_TOP)
      .map(([name, t]) => ({ name: name.slice(0, 150), ms: t, perUpdateMs: t / updates, share: (100 * t) / appMs }));
  return { totalMs, appMs, updates, appMsPerUpdate: appMs / updates, self: rank(self), inclusive: rank(incl) };
}

async function navigation(browser, baseUrl, query, loads) {
  const times = [];
  const details = [];
  for (let k = 0; k < loads; k++) {
    const { context, page } = await newPage(browser);
    try {
      await page.addInitScript((sel) => {
        const done = () => {
          if (window.__aeFirstHeatmap === undefined && document.querySelector(sel)) {
            window.__aeFirstHeatmap = performance.now();
            return true;
          }
          return false;
        };
        new MutationObserver((_, obs) => done() && obs.disconnect()).observe(document, {
          subtree: true,
          childList: true,
          attributes: true,
          attributeFilter: ['data-ready'],
        });
      }, READY_SELECTOR);
      await page.goto(appUrl(query, baseUrl), { waitUntil: 'commit' });
      await page.waitForSelector(READY_SELECTOR, { state: 'attached', timeout: 60_000 });
      await page.waitForFunction(() => window.__aeFirstHeatmap !== undefined);
      const d = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'));
        return {
          firstHeatmap: window.__aeFirstHeatmap,
          responseEnd: nav?.responseEnd,
          domContentLoaded: nav?.domContentLoadedEventEnd,
          wasmFetched: wasm?.responseEnd,
        };
      });
      times.push(d.firstHeatmap);
      details.push(d);
    } finally {
      await context.close();
    }
  }
  const med = (key) => stats(details.map((d) => d[key]).filter((v) => typeof v === 'number')).median;
  return {
    ...stats(times),
    samples: times,
    medianResponseEnd: med('responseEnd'),
    medianDomContentLoaded: med('domContentLoaded'),
    medianWasmFetched: med('wasmFetched'),
  };
}

const fmt = (v) => (v === undefined || v === null || Number.isNaN(v) ? '—' : v.toFixed(2));

async function main() {
  const server = await startServer(DIST ? { dir: DIST } : {});
  const browser = await launchBrowser();
  const results = { dist: server.dir, chromium: browser.version(), updatesPerRun: UPDATES, scenarios: [], navigation: [] };
  try {
    for (const sc of SCENARIOS) {
      const { context, page, consoleLog } = await newPage(browser, { colorScheme: 'light' });
      try {
        await page.goto(appUrl(sc.query, server.url, sc.file ?? ''), { waitUntil: 'load' });
        await page.waitForSelector(READY_SELECTOR, { state: 'attached', timeout: 60_000 });
        await checkScenario(page, sc);
        const cdp = PROFILE ? await startProfile(page) : null;
        const slider = await sliderDrag(page, UPDATES);
        const sliderProfile = cdp ? await stopProfile(cdp, slider.samples.length + slider.misses) : null;
        if (cdp) await cdp.send('Profiler.start');
        const rows = await rowClicks(page, sc, UPDATES);
        const rowsProfile = cdp ? await stopProfile(cdp, rows.samples.length + rows.misses) : null;
        const churn = PROFILE ? null : await domChurn(page, sc);
        consoleLog.assertClean();
        const entry = {
          id: sc.id,
          label: sc.label,
          slider: { ...stats(slider.samples), misses: slider.misses },
          rows: { ...stats(rows.samples), misses: rows.misses },
          churn,
        };
        if (PROFILE) {
          entry.profile = { slider: sliderProfile, rows: rowsProfile };
          for (const [what, prof] of Object.entries(entry.profile)) {
            console.log(
              `\nCPU profile, ${sc.label}, ${what}: ${prof.updates} updates, app code on the stack ${prof.appMs.toFixed(0)} ms ` +
                `= ${prof.appMsPerUpdate.toFixed(2)} ms per update (of ${prof.totalMs.toFixed(0)} ms sampled)`,
            );
            console.log('  self time (leaf function)           ms/update  share');
            for (const f of prof.self) console.log(`  ${f.perUpdateMs.toFixed(3).padStart(8)} ${f.share.toFixed(1).padStart(5)}%  ${f.name}`);
            console.log('  inclusive time (Rust functions)     ms/update  share');
            for (const f of prof.inclusive) console.log(`  ${f.perUpdateMs.toFixed(3).padStart(8)} ${f.share.toFixed(1).padStart(5)}%  ${f.name}`);
          }
        }
        results.scenarios.push(entry);
        console.log(
          `${sc.label.padEnd(38)} slider n=${entry.slider.n} median ${fmt(entry.slider.median)} ms p95 ${fmt(entry.slider.p95)} ms | ` +
            `rows n=${entry.rows.n} median ${fmt(entry.rows.median)} ms p95 ${fmt(entry.rows.p95)} ms`,
        );
        if (churn) {
          const show = (o) => Object.entries(o).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ') || 'none';
          console.log(`  DOM changes per update (${churn.elements} elements): slider: ${show(churn.slider)}`);
          console.log(`  DOM changes per update: row click: ${show(churn.rows)}`);
        }
      } finally {
        await context.close();
      }
    }
    for (const [label, query] of [
      ['default view (no query)', ''],
      ...(ONLY && !ONLY.split(',').includes('256t-8h')
        ? []
        : [['256 tokens, 8 heads', SCENARIOS.find((s) => s.id === '256t-8h')?.query]].filter(([, q]) => q)),
    ]) {
      const nav = await navigation(browser, server.url, query, LOADS);
      results.navigation.push({ label, ...nav });
      console.log(
        `navigation → first heatmap, ${label}: median ${fmt(nav.median)} ms (n=${nav.n}, min ${fmt(nav.min)}, max ${fmt(nav.max)}; ` +
          `HTML ${fmt(nav.medianResponseEnd)} ms, wasm fetched ${fmt(nav.medianWasmFetched)} ms)`,
      );
    }
  } finally {
    await browser.close().catch(() => {});
    await server.close();
  }
  if (OUT) await writeFile(OUT, JSON.stringify(results, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
