// Training page benchmark — not a test; run by hand after a build:
//   node benches/train_page.mjs [--dist dist] [--query tseed=1] [--steps 1500] [--json out.json]
//                               [--parallel 2]
//
// The run trains in a Web Worker (the page's default; the JSON's `engine` says which engine
// trained it, from the panel's data-engine); add workers=0 to --query for the main-thread
// fallback. --parallel N opens N pages at once, each training its own run in its own worker
// (N runs sharing the machine's cores), and reports each one's steps/s and their sum; the
// detailed numbers below are the first page's.
// Opens train.html in headless Chromium with the link's settings (default: the repeat task's
// reference default, seed 1), presses Train and lets it run to --steps steps, then pauses. It
// reports the steps per second from the click to the pause (wall clock), the main-thread tasks
// over 50 ms while it trained (Long Tasks API: how many and the longest), the first evaluated step
// whose repeated-part loss is at most 30 % of the first copy's (from the page's loss table) or, for
// the tiny grammar (--query train=grammar&tseed=1), the first whose held-out loss is within 10 % of
// the held-out floor the page prints, with the seconds from Train to that step (the step
// counter's changes are logged with their times), and the detector table at the end. It also times every training slice (each is a MessageChannel
// message, src/web/next_task.rs: the handler is wrapped), counts the frames the page draws while
// it trains (a requestAnimationFrame loop: frames per second and the longest gap between two), and
// notes when the detector table was redrawn (a MutationObserver, whose callback runs in the task
// that redrew it), to tell which long tasks were an evaluation's redraw.
import { startServer, launchBrowser, newPage, appUrl } from '../e2e/harness.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const DIST = opt('dist', process.env.E2E_DIST);
const QUERY = opt('query', 'tseed=1');
const STEPS = Number(opt('steps', 1500));
const JSON_OUT = opt('json', '');
const PARALLEL = Math.max(1, Number(opt('parallel', 1)));

const server = await startServer(DIST ? { dir: DIST } : {});
const browser = await launchBrowser();
try {
  const { page } = await newPage(browser);
  await page.addInitScript(() => {
    // The training slices are MessageChannel tasks (src/web/next_task.rs): time every message
    // handler, i.e. each slice and what it sets off synchronously.
    window.__slices = [];
    const onmessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage');
    Object.defineProperty(MessagePort.prototype, 'onmessage', {
      get() {
        return onmessage.get.call(this);
      },
      set(handler) {
        onmessage.set.call(this, handler && ((e) => {
          const a = performance.now();
          try {
            handler(e);
          } finally {
            window.__slices.push(performance.now() - a);
          }
        }));
      },
    });
    // Every frame the page draws: a requestAnimationFrame loop of its own, which also notes when
    // the step counter first shows each new count (what a viewer sees, frame by frame).
    window.__frameTimes = [];
    window.__stepTimes = [];
    // When the detector table changes (an evaluation redrawn), to tell long tasks apart.
    window.__redraws = [];
    const tick = (t) => {
      window.__frameTimes.push(t);
      const counter = document.querySelector('[data-testid=train-steps] output');
      const steps = counter ? Number(counter.textContent.replaceAll(',', '')) : NaN;
      if (counter && steps !== window.__stepTimes.at(-1)?.[1]) window.__stepTimes.push([performance.now(), steps]);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    addEventListener('DOMContentLoaded', () =>
      new MutationObserver((records) => {
        const inTable = (n) => (n.nodeType === 1 ? n : n.parentElement)?.closest('[data-testid=detector-table]');
        if (records.some((r) => inTable(r.target))) window.__redraws.push(performance.now());
      }).observe(document.body, { subtree: true, childList: true, characterData: true }),
    );
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const others = await Promise.all(Array.from({ length: PARALLEL - 1 }, () => newPage(browser).then((p) => p.page)));
  const pages = [page, ...others];
  const stepsOf = async (p) => Number((await p.locator('[data-testid=train-steps] output').textContent()).replaceAll(',', ''));
  await Promise.all(pages.map(async (p) => {
    await p.goto(appUrl(QUERY, server.url, 'train.html'));
    await p.locator('[data-testid=loss-chart][data-ready=true]').waitFor();
  }));
  const engine = await page.getByTestId('training').getAttribute('data-engine');
  const steps = () => stepsOf(page);
  /** Trains page `p` from Train to STEPS steps and its pause: [start, end] (ms, its clock), steps. */
  const trainOn = async (p) => {
    const a = await p.evaluate(() => performance.now());
    await p.locator('[data-testid=train-toggle]').click();
    while ((await stepsOf(p)) < STEPS) await p.waitForTimeout(250);
    await p.locator('[data-testid=train-toggle]').click();
    await p.locator('[data-testid=train-toggle]', { hasText: 'Train' }).waitFor();
    const b = await p.evaluate(() => performance.now());
    return { a, b, n: await stepsOf(p) };
  };
  const runs = await Promise.all(pages.map(trainOn));
  const { a: t0, b: t1, n } = runs[0];
  const rates = runs.map((r) => (r.n * 1000) / (r.b - r.a));
  if (PARALLEL > 1) {
    console.log(`${PARALLEL} runs at once (${engine}): ${rates.map((r) => r.toFixed(1)).join(', ')} steps/s; together ${rates.reduce((x, y) => x + y, 0).toFixed(1)} steps/s`);
  }
  const tasks = await page.evaluate(([a, b]) => window.__longTasks.filter((t) => t.start >= a && t.start <= b), [t0, t1]);
  const longest = tasks.reduce((m, t) => Math.max(m, t.duration), 0);
  await page.getByText('Loss table', { exact: false }).click();
  const rows = await page.locator('[data-testid=loss-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((c) => Number(c.dataset.value ?? c.textContent))),
  );
  rows.reverse();
  const formed = rows.find(([, , first, repeated]) => repeated <= 0.3 * first);
  // Only the tiny grammar has the sentence (read at once: a missing element would be waited for).
  const verdict = page.getByTestId('grammar-verdict');
  const minimumText = (await verdict.count()) ? await verdict.getAttribute('data-floor') : null;
  const minimum = minimumText === null ? null : Number(minimumText);
  const near = minimum === null ? undefined : rows.find(([, all]) => all <= 1.1 * minimum);
  const stepTimes = await page.evaluate(() => window.__stepTimes);
  /** Seconds from the click on Train to the step counter's first showing `step` or more. */
  const secondsTo = (step) => {
    const seen = stepTimes.find(([t, n]) => t >= t0 && n >= step);
    return seen ? (seen[0] - t0) / 1000 : null;
  };
  /** `secondsTo(step)` for a log line ("?" if no counter change was recorded at or after it). */
  const secondsText = (step, digits) => secondsTo(step)?.toFixed(digits) ?? '?';
  const detectors = await page.locator('[data-testid=detector-table] tbody tr').evaluateAll((trs) =>
    trs.map((tr) => tr.innerText.replace(/\s+/g, ' ')),
  );
  console.log(`${QUERY} (${engine}): ${n} steps in ${((t1 - t0) / 1000).toFixed(1)} s = ${((n * 1000) / (t1 - t0)).toFixed(1)} steps/s`);
  console.log(`long tasks (≥ 50 ms) while training: ${tasks.length}, the longest ${longest.toFixed(0)} ms`);
  const redraws = await page.evaluate(() => window.__redraws);
  for (const t of tasks) {
    const inside = redraws.some((r) => r >= t.start && r <= t.start + t.duration);
    console.log(`  at ${((t.start - t0) / 1000).toFixed(2)} s: ${t.duration.toFixed(0)} ms${inside ? ' (an evaluation redraw)' : ' (not an evaluation redraw)'}`);
  }
  const slices = (await page.evaluate(() => window.__slices)).sort((a, b) => a - b);
  // With a worker, the page's MessageChannel tasks are only its own few; on the main thread each
  // is a training slice.
  const q = (p) => (slices.length ? slices[Math.min(slices.length - 1, Math.floor(slices.length * p))].toFixed(1) : '0');
  console.log(`main-thread message tasks (training slices without a worker): ${slices.length}; ms p50 ${q(0.5)}, p90 ${q(0.9)}, p99 ${q(0.99)}, max ${q(1)}; over 10 ms: ${slices.filter((f) => f > 10).length}`);
  const frameTimes = await page.evaluate(([a, b]) => window.__frameTimes.filter((t) => t >= a && t <= b), [t0, t1]);
  const gaps = frameTimes.slice(1).map((t, i) => t - frameTimes[i]).sort((a, b) => a - b);
  const g = (p) => gaps[Math.min(gaps.length - 1, Math.floor(gaps.length * p))].toFixed(1);
  console.log(`frames drawn while training: ${((frameTimes.length * 1000) / (t1 - t0)).toFixed(1)} per s; gap between frames ms p50 ${g(0.5)}, p99 ${g(0.99)}, max ${gaps.at(-1).toFixed(1)}`);
  if (minimum === null) {
    console.log(formed ? `repeated part ≤ 30 % of the first copy from the evaluation at step ${formed[0]}, ${secondsText(formed[0], 1)} s after Train` : 'repeated part never ≤ 30 % of the first copy');
  } else {
    console.log(near ? `held-out loss within 10 % of its floor (${minimum.toFixed(4)} nats) from the evaluation at step ${near[0]}, ${secondsText(near[0], 2)} s after Train` : `held-out loss never within 10 % of its floor (${minimum.toFixed(4)} nats)`);
  }
  if (JSON_OUT) {
    const { writeFile } = await import('node:fs/promises');
    const rate = (n * 1000) / (t1 - t0);
    await writeFile(JSON_OUT, JSON.stringify({
      query: QUERY,
      engine,
      parallel: PARALLEL,
      parallel_steps_per_second: rates,
      steps: n,
      seconds: (t1 - t0) / 1000,
      steps_per_second: rate,
      long_tasks: tasks.length,
      longest_task_ms: longest,
      slice_ms: { p50: Number(q(0.5)), p99: Number(q(0.99)), max: Number(q(1)) },
      frames_per_second: (frameTimes.length * 1000) / (t1 - t0),
      longest_frame_gap_ms: gaps.at(-1),
      formed_step: formed ? formed[0] : null,
      formed_seconds: formed ? secondsTo(formed[0]) : null,
      held_out_floor: minimum,
      within_10_percent_step: near ? near[0] : null,
      within_10_percent_seconds: near ? secondsTo(near[0]) : null,
    }, null, 1));
  }
  console.log(`detector table at step ${Math.floor(n / 25) * 25} (head, previous, induction, first, self, entropy):`);
  for (const d of detectors) console.log(`  ${d}`);
} finally {
  await browser.close();
  await server.close();
}
