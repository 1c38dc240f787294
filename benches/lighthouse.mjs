// Lighthouse benchmark — not a test; run by scripts/bench.sh (section 3, and --compare):
//   node benches/lighthouse.mjs [--dist dist] [--runs 3] [--pages index.html,practice.html,train.html,generate.html]
//                               [--out lighthouse.json] [--reports DIR] [--timeout 240] [--port 0]
//
// Serves the dist on 127.0.0.1 at a free port with gzip (level 9, as a static host serves it; the
// same server as the e2e suite, e2e/harness.mjs) and runs Lighthouse's performance category with
// its default settings — mobile form factor, simulated throttling (slow 4G, 4× CPU slowdown) —
// `--runs` times on each page, the pages taking turns (page 1, 2, 3, then again), so that a burst
// of other work on the machine hits every page alike. Per run: the score (0–100) and LCP, TBT, CLS,
// FCP, Speed Index (ms; CLS unitless), the LCP element, and Lighthouse's run warnings; per page the
// median of each. --reports keeps every run's full Lighthouse JSON there.
//
// Lighthouse: $LIGHTHOUSE if set, else target/bench/lighthouse/node_modules/.bin/lighthouse, which
// this script installs there on first use (--no-install: fail instead) with
//   npm install --prefix target/bench/lighthouse lighthouse@12.8.2 --no-audit --no-fund
// (the npm package only; it downloads no browser: Lighthouse launches the Chromium at
// $CHROMIUM_PATH, default /usr/bin/chromium, through CHROME_PATH). Nothing in scripts/test.sh or
// CI runs this.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, CHROMIUM_PATH, REPO_ROOT } from '../e2e/harness.mjs';

const LIGHTHOUSE_VERSION = '12.8.2';
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const DIST = path.resolve(opt('dist', process.env.E2E_DIST || path.join(REPO_ROOT, 'dist')));
const RUNS = Number(opt('runs', 3));
const PAGES = opt('pages', 'index.html,practice.html,train.html,generate.html').split(',').filter(Boolean);
const OUT = opt('out', null);
const REPORTS = opt('reports', null);
const TIMEOUT_S = Number(opt('timeout', 240));
const PORT = Number(opt('port', 0)); // 0: any free port
const INSTALL = !argv.includes('--no-install');
const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
].join(' ');

/** Runs a command; resolves to { code, stdout, stderr }; kills it (by its PID) after timeoutMs. */
function run(cmd, args, { env = process.env, timeoutMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    let timedOut = false;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, timeoutMs)
      : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code: timedOut ? 'timeout' : code, stdout, stderr });
    });
  });
}

/** The Lighthouse CLI to use, installing the pinned version on demand. */
async function lighthouseBin() {
  if (process.env.LIGHTHOUSE) {
    if (!existsSync(process.env.LIGHTHOUSE)) throw new Error(`LIGHTHOUSE=${process.env.LIGHTHOUSE} does not exist`);
    return process.env.LIGHTHOUSE;
  }
  const prefix = path.join(REPO_ROOT, 'target', 'bench', 'lighthouse');
  const bin = path.join(prefix, 'node_modules', '.bin', 'lighthouse');
  if (existsSync(bin)) return bin;
  if (!INSTALL) throw new Error(`no Lighthouse: set LIGHTHOUSE=/path/to/lighthouse or install it into ${prefix}`);
  console.error(`lighthouse: installing lighthouse@${LIGHTHOUSE_VERSION} into ${prefix} (npm package only, no browser)`);
  await mkdir(prefix, { recursive: true });
  const env = { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', PUPPETEER_SKIP_CHROMIUM_DOWNLOAD: '1' };
  const r = await run('npm', ['install', '--prefix', prefix, `lighthouse@${LIGHTHOUSE_VERSION}`, '--no-audit', '--no-fund'], { env });
  if (r.code !== 0 || !existsSync(bin)) throw new Error(`npm install lighthouse failed (${r.code}):\n${r.stderr}`);
  return bin;
}

function median(values) {
  const s = values.filter((v) => typeof v === 'number' && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!s.length) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** The figures of one Lighthouse JSON report. */
function figures(report) {
  const a = report.audits || {};
  const num = (id) => (typeof a[id]?.numericValue === 'number' ? a[id].numericValue : null);
  const score = report.categories?.performance?.score;
  const lcpItem = a['largest-contentful-paint-element']?.details?.items?.[0];
  const lcpNode = lcpItem?.items?.[0]?.node || lcpItem?.node;
  return {
    score: typeof score === 'number' ? Math.round(score * 100) : null,
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    fcp: num('first-contentful-paint'),
    si: num('speed-index'),
    tti: num('interactive'),
    maxPotentialFid: num('max-potential-fid'),
    lcpElement: lcpNode ? `${lcpNode.nodeLabel || ''} (${lcpNode.selector || '?'})`.slice(0, 160) : null,
    mainThreadMs: num('mainthread-work-breakdown'),
    bootupMs: num('bootup-time'),
    totalByteWeight: num('total-byte-weight'),
    benchmarkIndex: report.environment?.benchmarkIndex ?? null,
    runtimeError: report.runtimeError?.message || null,
    runWarnings: report.runWarnings || [],
  };
}

const METRICS = ['score', 'lcp', 'tbt', 'cls', 'fcp', 'si', 'tti', 'maxPotentialFid', 'mainThreadMs', 'bootupMs', 'totalByteWeight', 'benchmarkIndex'];

async function main() {
  if (!existsSync(path.join(DIST, 'index.html'))) throw new Error(`${DIST}/index.html not found`);
  for (const page of PAGES) if (!existsSync(path.join(DIST, page))) throw new Error(`${DIST}/${page} not found`);
  const lighthouse = await lighthouseBin();
  const version = (await run(lighthouse, ['--version'])).stdout.trim();
  const server = await startServer({ dir: DIST, gzip: true, port: PORT });
  const tmp = await mkdtemp(path.join(tmpdir(), 'ae-lighthouse-'));
  if (REPORTS) await mkdir(REPORTS, { recursive: true });
  const result = {
    dist: DIST,
    lighthouse: version,
    chromium: CHROMIUM_PATH,
    settings: 'mobile form factor, simulated throttling (Lighthouse defaults), performance category only, gzip server',
    runsPerPage: RUNS,
    pages: Object.fromEntries(PAGES.map((p) => [p, { runs: [], median: null }])),
  };
  try {
    // Warm the server's gzip cache, so the first run does not wait for compression.
    for (const page of PAGES) {
      const res = await fetch(`${server.url}/${page}`).catch(() => null);
      const html = res ? await res.text() : '';
      for (const m of html.matchAll(/\b(?:src|href)="(?:\.\/)?([^"/?#]+\.(?:js|wasm|css))"/g)) {
        await (await fetch(`${server.url}/${m[1]}`, { headers: { 'accept-encoding': 'gzip' } }).catch(() => null))?.arrayBuffer();
      }
    }
    for (let r = 1; r <= RUNS; r++) {
      for (const page of PAGES) {
        const out = path.join(tmp, `${page.replace(/\W+/g, '_')}-${r}.json`);
        const url = `${server.url}/${page === 'index.html' ? '' : page}`;
        const t0 = Date.now();
        const res = await run(
          lighthouse,
          [
            url,
            '--only-categories=performance',
            '--output=json',
            `--output-path=${out}`,
            '--quiet',
            `--chrome-flags=${CHROME_FLAGS}`,
          ],
          { env: { ...process.env, CHROME_PATH: CHROMIUM_PATH }, timeoutMs: TIMEOUT_S * 1000 },
        );
        let fig;
        if (res.code === 0 && existsSync(out)) {
          const report = JSON.parse(await readFile(out, 'utf8'));
          fig = figures(report);
          if (REPORTS) await writeFile(path.join(REPORTS, path.basename(out)), JSON.stringify(report));
        } else {
          fig = { score: null, runtimeError: `lighthouse exited ${res.code}: ${res.stderr.trim().split('\n').slice(-3).join(' | ')}` };
        }
        fig.run = r;
        fig.seconds = (Date.now() - t0) / 1000;
        result.pages[page].runs.push(fig);
        const f = (v, d = 0) => (typeof v === 'number' ? v.toFixed(d) : '—');
        console.log(
          `lighthouse ${page} run ${r}/${RUNS}: score ${f(fig.score)}, LCP ${f(fig.lcp)} ms, TBT ${f(fig.tbt)} ms, ` +
            `CLS ${f(fig.cls, 3)}, FCP ${f(fig.fcp)} ms, SI ${f(fig.si)} ms` +
            (fig.runtimeError ? ` — ERROR: ${fig.runtimeError}` : '') +
            (fig.runWarnings?.length ? ` — warnings: ${fig.runWarnings.join('; ')}` : ''),
        );
      }
    }
    for (const page of PAGES) {
      const runs = result.pages[page].runs;
      result.pages[page].median = Object.fromEntries(METRICS.map((k) => [k, median(runs.map((x) => x[k]))]));
      result.pages[page].lcpElement = runs.find((x) => x.lcpElement)?.lcpElement ?? null;
      const m = result.pages[page].median;
      console.log(
        `lighthouse ${page} median of ${runs.length}: score ${m.score ?? '—'}, LCP ${m.lcp?.toFixed(0) ?? '—'} ms, ` +
          `TBT ${m.tbt?.toFixed(0) ?? '—'} ms, CLS ${m.cls?.toFixed(3) ?? '—'}, FCP ${m.fcp?.toFixed(0) ?? '—'} ms, ` +
          `SI ${m.si?.toFixed(0) ?? '—'} ms; LCP element: ${result.pages[page].lcpElement ?? '—'}`,
      );
    }
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }
  if (OUT) {
    await mkdir(path.dirname(path.resolve(OUT)), { recursive: true });
    await writeFile(OUT, JSON.stringify(result, null, 1));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
