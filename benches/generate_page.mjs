// Generate page benchmark — not a test; run by scripts/bench.sh after a build:
//   node benches/generate_page.mjs [--dist dist] [--tokens 60] [--json out.json]
//
// The speed goal: one generated token, with its redraw, fits in a frame (≤ 16 ms at the 95th
// percentile) at the longest prompt. Opens generate.html with a prompt of 14 tokens (the context
// holds 16, so the text can grow by 2), then, --tokens times: presses Next token (timed), then
// Reset (not timed). Each press is timed as the browser benchmark times an input
// (benches/browser.mjs), without the wait for the frame: frame = (settled − click) + (after the
// frame − frame start), where `settled` is a task posted right after the click (it runs once the
// app's work is done) and the frame's end is a task posted from its animation-frame callback (it
// runs after that frame's style, layout and paint). It checks that each press
// added one heatmap row, or the run fails. Prints the median, p95 and the largest, in ms.
import { writeFile } from 'node:fs/promises';
import { startServer, launchBrowser, newPage, appUrl } from '../e2e/harness.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const DIST = opt('dist', process.env.E2E_DIST);
const TOKENS = Number(opt('tokens', 60));
const JSON_OUT = opt('json', null);
const PROMPT = 'the cat sat on the mat . my dogs are near the old box';

const server = await startServer({ dir: DIST, gzip: true });
const browser = await launchBrowser();
const { page, context } = await newPage(browser);
await page.goto(appUrl(`p=${encodeURIComponent(PROMPT)}`, server.url, 'generate.html'));
await page.waitForSelector('[data-testid=gen-heatmap]');
await page.waitForFunction(() => !document.documentElement.hasAttribute('data-building'));
const rows = () => page.locator('[data-testid=gen-heatmap]').getAttribute('data-rows').then(Number);
const start = await rows();
const times = [];
for (let i = 0; i < TOKENS; i++) {
  const frame = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const button = document.querySelector('[data-testid=next-token]');
        const t0 = performance.now();
        let settled;
        // A task posted after the click runs once the app's work (its microtasks) is done.
        const settle = new MessageChannel();
        settle.port1.onmessage = () => {
          settled = performance.now();
        };
        requestAnimationFrame(() => {
          const frameStart = performance.now();
          const after = new MessageChannel();
          after.port1.onmessage = () => resolve(settled - t0 + (performance.now() - frameStart));
          after.port2.postMessage(0);
        });
        button.click();
        settle.port2.postMessage(0);
      }),
  );
  if ((await rows()) !== start + 1) throw new Error(`press ${i + 1} did not add one row`);
  times.push(frame);
  await page.getByTestId('generate-reset').click();
  await page.waitForFunction((n) => document.querySelector('[data-testid=gen-heatmap]').dataset.rows === String(n), start);
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
const result = { prompt_tokens: start, tokens: TOKENS, median_ms: at(0.5), p95_ms: at(0.95), max_ms: times[times.length - 1] };
console.log(JSON.stringify(result));
if (JSON_OUT) await writeFile(JSON_OUT, JSON.stringify(result, null, 2));
await context.close();
await browser.close();
await server.close();
