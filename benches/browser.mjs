// Browser benchmark — not a test, run by scripts/bench.sh; it drives the app with the e2e
// suite's harness (server, browser, page helpers):
//   node benches/browser.mjs --dist /tmp/dist-bench-z [--out bench.json] [--updates 120] [--loads 7]
//                      [--only default,64t-8h,256t-8h] [--nav explorer,explorer-canvas,practice,training,training-chart,explorer-256t-8h|none]
//                      [--slider-only] [--no-gzip] [--port 0]
//                      [--profile [--profile-top 25] [--trace-categories toplevel,devtools.timeline,…]]
//
// Release build in headless Chromium, real mouse input through Playwright. Times per input:
//   - compute + draw: the app's own timing hook, window.__aeTiming = {start, end, settled,
//     updates}: input events set `start`, every canvas draw sets `end` and counts `updates`, and
//     `settled` is taken in the first task after the input's work (all of Leptos' DOM and canvas
//     effects run as microtasks before it). compute + draw = settled − start (DOM included,
//     no style, layout or paint). An input that drew nothing is a miss and is not counted.
//   - frame (the speed targets): input → end of the layout and paint of the frame that shows it,
//     without the wait for that frame. A capture-phase listener on window (installed by this
//     script, so it works on any build) notes performance.now() at the `input` or `click` event
//     and asks for an animation frame; that rAF callback notes the frame's start and posts a
//     user-blocking task (installAfterFrame), run after the frame's style, layout, paint and
//     commit on the main thread. frame = (settled − input) + (delivery − frame start). The wait in between is
//     left out: Playwright's mouse events arrive at any point of the 16.7 ms frame interval, while
//     a real drag's mousemove events are aligned to frames (Chromium dispatches them just before
//     the frame's rAF callbacks). `latency` = delivery − input, wait included, is kept as well.
// After each input the script waits two animation frames (and for the frame's task).
//   - slider: mouse down on the #temperature thumb, then small mouse.move steps back and forth;
//   - rows:   clicks on changing rows of the main heatmap (not with --slider-only).
// Then, untimed, the DOM changes per update by page section (MutationObserver), and navigation
// start → each page's first view (a MutationObserver installed by addInitScript notes when the
// page's first-view element appears; see NAV_TARGETS).
// Scenarios: the default view (no query: the default sentence, 7 tokens, 2 heads: the "default
// sentence" target); the same with 1 head; the practice page's compare view; 64 short words with
// 8 heads; 256 short words with 8 heads (`max_tokens=256`, the developer URL flag; 256 words of 2–3
// letters fit MAX_SENTENCE_CHARS); and the frame floor, not the app (benches/frame_floor.html, opened
// from disk; its slider only).
// The server sends gzip (level 9, as a static host would; --no-gzip to turn it off); the compressed
// files are made once per file before the first timed load, so no load pays for compressing.
// Console errors and warnings are recorded per scenario and per load (`console` in the JSON) and
// printed, not fatal: a benchmark of two builds should still finish when one of them logs.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer, launchBrowser, newPage, appUrl, sliderGeometry, READY_SELECTOR } from '../e2e/harness.mjs';
import { heatmapLayout, shortWordSentence } from '../e2e/heatmap_geometry.mjs';
import { pageFiles } from '../scripts/budget.mjs';
import { startProfile, startTrace, stopTrace, stopProfile, printProfile } from './browser_profile.mjs';

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
// Comma-separated navigation targets (ids of NAV_TARGETS), or 'none'. Default: all of them, but
// the 256 × 8 load only when its scenario is not filtered out by --only.
const NAV = opt('nav', null);
const GZIP = !argv.includes('--no-gzip');
const PORT = Number(opt('port', 0)); // the server's port; 0: any free one
// --slider-only: no row clicks and no DOM-churn pass (the speed targets are the slider's).
const SLIDER_ONLY = argv.includes('--slider-only');
// --profile: record a V8 CPU profile (CDP Profiler) and a trace (CDP Tracing, TRACE_CATEGORIES)
// of each scenario's slider drag and row clicks and print where the time goes: main-thread time
// by kind (script, style, layout, paint, …) from the trace, and app functions from the profile.
// Use a dist whose wasm keeps its name section to see Rust function names (scripts/bench.sh
// makes one: target/bench/dist-prof); without one, wasm functions are only numbered. The profile and
// trace code, and its options --profile-top and --trace-categories: benches/browser_profile.mjs.
const PROFILE = argv.includes('--profile');

const SCENARIOS = [
  // The default view, no query at all: what a visitor opens (the default sentence, 2 heads).
  { id: 'default', label: 'default view (7 tokens, 2 heads, no query)', query: '', tokens: 7, heads: 2 },
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
  // Not the app: benches/frame_floor.html does the default view's visible work per step (the same
  // canvases redrawn, about as many text and attribute changes) in plain JavaScript, measured the
  // same way. The app's figure minus this one is what the app itself adds; this one is the floor.
  {
    id: 'floor',
    label: 'frame floor: static page, plain JS',
    url: pathToFileURL(fileURLToPath(new URL('frame_floor.html', import.meta.url))).href,
    tokens: 7,
    heads: 1, // no thumbnails: the app's are below the screen and not redrawn by a slider step
  },
];
const SCENARIO_256 = SCENARIOS.find((s) => s.id === '256t-8h');
const RUN_SCENARIOS = SCENARIOS.filter((s) => !ONLY || ONLY.split(',').includes(s.id));
if (ONLY) {
  const unknown = ONLY.split(',').filter((id) => id && !SCENARIOS.some((s) => s.id === id));
  if (unknown.length) throw new Error(`--only: unknown scenario ${unknown.join(', ')} (have ${SCENARIOS.map((s) => s.id).join(', ')})`);
}

/** The main heatmap of the explorer and of the practice page, once drawn. */
const HEATMAP_READY = 'canvas.heatmap[data-ready="true"]';
/**
 * What "first view" means per page (navigation start → the element appears):
 *  - explorer and practice: the first heatmap pixel: the default view's picture that the page's
 *    HTML holds (`.static-heatmap`, src/first_view/), which paints with the page; a
 *    link with a query hides it, so there it is the main heatmap drawn (`canvas.heatmap
 *    [data-ready]`, set in the draw pass that painted it, src/components/heatmap.rs).
 *    `explorer-canvas` times the explorer's canvas drawn (the picture's hand-over);
 *  - training page: what a wide screen's first screen shows under the static header, the
 *    settings and buttons (`fieldset.model`): written into train.html for a link without a
 *    query (src/first_view/training.rs), built by the app otherwise. The page has no
 *    heatmap before training; `training-chart` times its first drawing, the loss chart with step
 *    0's evaluation from the worker (`canvas[data-testid=loss-chart][data-ready]`,
 *    src/components/training/loss_curve.rs), which lies below the first screen (its top at
 *    1,200 px at 1280 px wide, 2,025 px at 360 px).
 */
const NAV_TARGETS = [
  { id: 'explorer', label: 'explorer, default view (no query): the heatmap written into the HTML', file: '', query: '', selector: `.static-heatmap, ${HEATMAP_READY}` },
  { id: 'explorer-canvas', label: 'explorer, default view: the app\'s canvas drawn', file: '', query: '', selector: HEATMAP_READY },
  { id: 'practice', label: 'practice page, default view: the heatmap written into the HTML', file: 'practice.html', query: '', selector: `.static-heatmap, ${HEATMAP_READY}` },
  { id: 'training', label: 'training page, first screen: the controls written into the HTML', file: 'train.html', query: '', selector: 'fieldset.model' },
  {
    id: 'training-chart',
    label: 'training page: the loss chart drawn (step 0 evaluated)',
    file: 'train.html',
    query: '',
    selector: 'canvas[data-testid="loss-chart"][data-ready="true"]',
  },
  { id: 'explorer-256t-8h', label: 'explorer, 256 tokens × 8 heads', file: '', query: SCENARIO_256.query, selector: HEATMAP_READY },
];
const RUN_NAV = (() => {
  if (NAV === 'none') return [];
  if (NAV) {
    const ids = NAV.split(',');
    const unknown = ids.filter((id) => id && !NAV_TARGETS.some((t) => t.id === id));
    if (unknown.length) throw new Error(`--nav: unknown target ${unknown.join(', ')} (have ${NAV_TARGETS.map((t) => t.id).join(', ')})`);
    return NAV_TARGETS.filter((t) => ids.includes(t.id));
  }
  return NAV_TARGETS.filter((t) => t.id !== 'explorer-256t-8h' || !ONLY || ONLY.split(',').includes('256t-8h'));
})();

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

/**
 * `window.__benchAfterFrame(callback)` (an init script), called from a requestAnimationFrame
 * callback: runs `callback` in the first task after that frame's style, layout, paint and commit
 * on the main thread. A user-blocking task (`scheduler.postTask`) runs before the page's own
 * timers and messages: the app builds the rest of its page in a timeout set from the same frame
 * (components::after_first_paint), and a plain message posted here was delivered only after that
 * 60–80 ms task, long after the frame's pixels had been committed. Without `scheduler` (not
 * Chromium), a message.
 */
function installAfterFrame(page) {
  return page.addInitScript(() => {
    window.__benchAfterFrame = (callback) => {
      if (globalThis.scheduler?.postTask) {
        scheduler.postTask(callback, { priority: 'user-blocking' });
      } else {
        const ch = new MessageChannel();
        ch.port1.onmessage = callback;
        ch.port2.postMessage(0);
      }
    };
  });
}

/**
 * The frame probe (an init script): at each `input` or `click` event (capture phase on window,
 * before the app's handlers) it notes performance.now() in window.__benchFrame.start and asks for
 * the next animation frame; that frame's rAF callback notes `shown` in the first task after the
 * frame's style, layout, paint and commit on the main thread (`installAfterFrame`).
 */
async function installFrameProbe(page) {
  await installAfterFrame(page);
  return page.addInitScript(() => {
    const onInput = () => {
      const frame = { start: performance.now(), raf: null, shown: null };
      window.__benchFrame = frame;
      requestAnimationFrame(() => {
        frame.raf = performance.now();
        window.__benchAfterFrame(() => {
          frame.shown = performance.now();
        });
      });
    };
    window.addEventListener('input', onInput, true);
    window.addEventListener('click', onInput, true);
  });
}

/** The app's timing hook and the frame probe, as they are now. */
const probes = () => {
  const t = window.__aeTiming || {};
  const f = window.__benchFrame || {};
  return {
    start: t.start ?? null,
    end: t.end ?? null,
    settled: t.settled ?? null,
    updates: t.updates ?? 0,
    frameStart: f.start ?? null,
    frameRaf: f.raf ?? null,
    frameShown: f.shown ?? null,
  };
};

/** Waits two animation frames, then returns the probes' values. */
async function afterTwoFrames(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  return page.evaluate(probes);
}

/**
 * Runs `input()`; if it produced a new update that drew, returns { compute, frame, latency } (ms):
 * compute + draw (settled − start, the app's hook), input → end of the layout and paint of the
 * frame that shows it without the wait for the frame, and the same with the wait; else null.
 */
async function measure(page, input) {
  const before = await page.evaluate(probes);
  await input();
  let after = await afterTwoFrames(page);
  if (after.frameStart !== before.frameStart && after.frameShown === null) {
    // The frame's message is normally in by now; wait for it if not.
    await page.waitForFunction(() => window.__benchFrame?.shown !== null, null, { timeout: 2000 }).catch(() => {});
    after = await page.evaluate(probes);
  }
  const fresh = after.start !== null && after.start !== before.start;
  const drew = after.updates > (before.updates ?? 0) && after.end >= after.start;
  const settled = after.settled !== null && after.settled >= after.end;
  const framed = after.frameStart !== null && after.frameStart !== before.frameStart && after.frameShown !== null;
  if (!(fresh && drew && settled && framed)) return null;
  const compute = after.settled - after.start;
  const latency = after.frameShown - after.frameStart;
  const rendering = after.frameShown - Math.max(after.frameRaf, after.settled);
  return { compute, frame: compute + rendering, latency };
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
  const frames = [];
  const latencies = [];
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
    else {
      samples.push(t.compute);
      frames.push(t.frame);
      latencies.push(t.latency);
    }
  }
  await page.mouse.up();
  return { samples, frames, latencies, misses };
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
  const frames = [];
  const latencies = [];
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
    else {
      samples.push(t.compute);
      frames.push(t.frame);
      latencies.push(t.latency);
    }
  }
  return { samples, frames, latencies, misses };
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

/**
 * Navigation start → the first-view element of `target` (NAV_TARGETS), `loads` times, each in a
 * fresh browser context (no HTTP cache; the server also sends `Cache-Control: no-store`). The time
 * is `performance.now()` in the MutationObserver callback that first sees the element, i.e. right
 * after the draw pass that painted it (the pixels reach the screen with the next frame). Also
 * per load: HTML and wasm received, DOMContentLoaded, first contentful paint, and the last largest
 * contentful paint candidate seen by then.
 */
async function navigation(browser, baseUrl, target, loads) {
  const times = [];
  const details = [];
  const consoleSeen = new Set();
  for (let k = 0; k < loads; k++) {
    const { context, page, consoleLog } = await newPage(browser);
    try {
      await installAfterFrame(page);
      await page.addInitScript((sel) => {
        // Drawn: the observer callback that first sees the element (a microtask after the draw
        // pass that set data-ready). Shown: the first frame after it has run its rendering steps:
        // the first task after that frame's style, layout, paint and commit (installAfterFrame).
        const done = () => {
          if (window.__aeFirstView === undefined && document.querySelector(sel)) {
            window.__aeFirstView = performance.now();
            requestAnimationFrame(() => {
              window.__aeFirstViewFrame = performance.now();
              window.__benchAfterFrame(() => {
                window.__aeFirstViewShown = performance.now();
              });
            });
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
        window.__aeLcp = null;
        try {
          new PerformanceObserver((list) => {
            for (const e of list.getEntries()) window.__aeLcp = e.startTime;
          }).observe({ type: 'largest-contentful-paint', buffered: true });
        } catch {
          // no LCP in this browser
        }
      }, target.selector);
      await page.goto(appUrl(target.query, baseUrl, target.file), { waitUntil: 'commit' });
      await page.waitForSelector(target.selector, { state: 'attached', timeout: 60_000 });
      await page.waitForFunction(() => window.__aeFirstViewShown !== undefined);
      // One frame more, so that the first-view frame's paint entries exist.
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
      const d = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const wasm = performance.getEntriesByType('resource').find((r) => r.name.endsWith('.wasm'));
        const fcp = performance.getEntriesByName('first-contentful-paint')[0];
        return {
          firstView: window.__aeFirstViewShown,
          drawn: window.__aeFirstView,
          frame: window.__aeFirstViewFrame,
          responseEnd: nav?.responseEnd,
          domContentLoaded: nav?.domContentLoadedEventEnd,
          wasmFetched: wasm?.responseEnd,
          wasmTransferBytes: wasm?.transferSize,
          firstContentfulPaint: fcp?.startTime,
          largestContentfulPaint: window.__aeLcp ?? undefined,
        };
      });
      // An element in the HTML (the explorer's written heatmap) is seen while the page is parsed,
      // and the frames before the first contentful paint paint nothing: Chromium holds the first
      // paint until it has content to show. So the first view is never earlier than that paint.
      times.push(Math.max(d.firstView, d.firstContentfulPaint ?? 0));
      details.push(d);
      for (const line of consoleLog.all()) consoleSeen.add(line);
    } finally {
      await context.close();
    }
  }
  const med = (key) => {
    const v = details.map((d) => d[key]).filter((x) => typeof x === 'number');
    return v.length ? stats(v).median : null;
  };
  return {
    ...stats(times),
    samples: times,
    medianDrawn: med('drawn'),
    medianFrame: med('frame'),
    medianResponseEnd: med('responseEnd'),
    medianDomContentLoaded: med('domContentLoaded'),
    medianWasmFetched: med('wasmFetched'),
    medianFirstContentfulPaint: med('firstContentfulPaint'),
    medianLargestContentfulPaint: med('largestContentfulPaint'),
    wasmTransferBytes: details.find((d) => typeof d.wasmTransferBytes === 'number')?.wasmTransferBytes ?? null,
    console: [...consoleSeen],
  };
}

/** Fetches every code file of the pages once, so the server has compressed them before timing. */
async function warmServer(baseUrl, dist, files) {
  const names = new Set(files.flatMap((f) => [f || 'index.html', ...pageFiles(dist, f || 'index.html')]));
  for (const name of names) {
    const res = await fetch(`${baseUrl}/${name}`, { headers: { 'accept-encoding': 'gzip' } }).catch(() => null);
    await res?.arrayBuffer().catch(() => {});
  }
}

const fmt = (v) => (v === undefined || v === null || Number.isNaN(v) ? '—' : v.toFixed(2));

async function main() {
  const server = await startServer({ ...(DIST ? { dir: DIST } : {}), gzip: GZIP, port: PORT });
  const browser = await launchBrowser();
  const results = {
    dist: server.dir,
    chromium: browser.version(),
    gzip: GZIP,
    updatesPerRun: UPDATES,
    loadsPerPage: LOADS,
    scenarios: [],
    navigation: [],
  };
  try {
    if (GZIP) await warmServer(server.url, server.dir, [...new Set([...RUN_SCENARIOS.filter((s) => !s.url), ...RUN_NAV].map((t) => t.file ?? ''))]);
    for (const sc of RUN_SCENARIOS) {
      const { context, page, consoleLog } = await newPage(browser, { colorScheme: 'light' });
      try {
        await installFrameProbe(page);
        await page.goto(sc.url ?? appUrl(sc.query, server.url, sc.file ?? ''), { waitUntil: 'load' });
        await page.waitForSelector(READY_SELECTOR, { state: 'attached', timeout: 60_000 });
        await checkScenario(page, sc);
        // --profile: a V8 CPU profile and a trace of the slider drag, then of the row clicks.
        const cdp = PROFILE ? await startProfile(page) : null;
        let trace = cdp ? await startTrace(cdp) : null;
        const slider = await sliderDrag(page, UPDATES);
        const profiles = {};
        if (cdp) {
          const n = slider.samples.length + slider.misses;
          profiles.slider = { ...(await stopProfile(cdp, n)), trace: await stopTrace(cdp, trace, n) };
        }
        let rows = { samples: [], frames: [], latencies: [], misses: 0 };
        // The floor page has no rows to click: its slider only.
        if (!SLIDER_ONLY && !sc.url) {
          if (cdp) {
            await cdp.send('Profiler.start');
            trace = await startTrace(cdp);
          }
          rows = await rowClicks(page, sc, UPDATES);
          if (cdp) {
            const n = rows.samples.length + rows.misses;
            profiles.rows = { ...(await stopProfile(cdp, n)), trace: await stopTrace(cdp, trace, n) };
          }
        }
        const churn = PROFILE || SLIDER_ONLY || sc.url ? null : await domChurn(page, sc);
        const entry = {
          id: sc.id,
          label: sc.label,
          file: sc.file ?? 'index.html',
          query: sc.query,
          tokens: sc.tokens,
          heads: sc.heads,
          // compute + draw (the app's hook) and input → end of frame (the frame probe), per input
          slider: { ...stats(slider.samples), misses: slider.misses, samples: slider.samples },
          sliderFrame: { ...stats(slider.frames), samples: slider.frames },
          sliderLatency: { ...stats(slider.latencies), samples: slider.latencies },
          rows: { ...stats(rows.samples), misses: rows.misses, samples: rows.samples },
          rowsFrame: { ...stats(rows.frames), samples: rows.frames },
          rowsLatency: { ...stats(rows.latencies), samples: rows.latencies },
          churn,
          console: [...new Set(consoleLog.all())],
        };
        for (const line of entry.console) console.log(`  CONSOLE (${sc.id}): ${line}`);
        if (PROFILE) {
          entry.profile = profiles;
          for (const [what, prof] of Object.entries(profiles)) printProfile(`${sc.label}, ${what}`, prof);
        }
        results.scenarios.push(entry);
        console.log(
          `${sc.label.padEnd(38)} slider n=${entry.slider.n}: input → end of frame median ${fmt(entry.sliderFrame.median)} ms ` +
            `p95 ${fmt(entry.sliderFrame.p95)} ms (with the wait for the frame: median ${fmt(entry.sliderLatency.median)} ms); compute+draw median ${fmt(entry.slider.median)} ms p95 ${fmt(entry.slider.p95)} ms` +
            (SLIDER_ONLY
              ? ''
              : ` | rows n=${entry.rows.n}: frame median ${fmt(entry.rowsFrame.median)} ms p95 ${fmt(entry.rowsFrame.p95)} ms; ` +
                `compute+draw median ${fmt(entry.rows.median)} ms p95 ${fmt(entry.rows.p95)} ms`),
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
    for (const target of RUN_NAV) {
      const nav = await navigation(browser, server.url, target, LOADS);
      results.navigation.push({ id: target.id, label: target.label, file: target.file || 'index.html', selector: target.selector, ...nav });
      console.log(
        `navigation → first view, ${target.label}: median ${fmt(nav.median)} ms on screen, ${fmt(nav.medianDrawn)} ms drawn, ${fmt(nav.medianFrame)} ms its frame` +
          `(n=${nav.n}, min ${fmt(nav.min)}, max ${fmt(nav.max)}; HTML ${fmt(nav.medianResponseEnd)} ms, ` +
          `wasm fetched ${fmt(nav.medianWasmFetched)} ms, FCP ${fmt(nav.medianFirstContentfulPaint)} ms)`,
      );
      for (const line of nav.console) console.log(`  CONSOLE (${target.id}): ${line}`);
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
