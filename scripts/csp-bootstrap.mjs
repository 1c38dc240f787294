// Trunk post_build hook (see Trunk.toml): the page under a strict CSP. Moves Trunk's inline bootstrap
// script into a file, and writes what the first paint waits for into the page, named by hash.
//
// Trunk 0.21 starts the app with an inline `<script type="module">import init … await init(…)`
// in index.html. The Content-Security-Policy in index.html allows scripts only from the app's own
// origin ('self') and no inline script but those it names by hash, so that bootstrap would be
// blocked. This hook writes it to `bootstrap-<hash>.js` next to index.html in $TRUNK_STAGING_DIR
// and replaces the inline block with `<script type="module" src="…">`. It fails the build if any other inline script is left
// (the policy would block it) or if the CSP meta tag is missing.
//
// Any path: with a relative public URL (Trunk.toml: public_url = "./") the page's asset URLs are
// relative, the bootstrap sits next to index.html, its `import` resolves relative to itself, and
// the wasm URL it fetches is made relative to the bootstrap too (`new URL(…, import.meta.url)`;
// a bare string would be fetched relative to the document's base URL). The
// hook then fails the build if index.html still names a `/`-rooted URL, which would break a
// deployment under a sub-path.
//
// What the first paint waits for is written into the page: a classic script marked `data-inline`
// (`<script data-inline src="assets/first-view.js">`) and the style sheet
// (`<link data-inline rel="stylesheet" href="style/main.css">`), paths relative to the project
// root, become a `<script>` and a `<style>` element, and the base64 sha256 of each text is added
// to the policy's script-src or style-src. In <head>, either held the first paint back until its
// request was answered; written in, they cost none (measured in BENCHMARKS.md's notes). A hash lets
// that one text apply and no other: an injected inline script or style is still blocked. The
// script loses its whole-line comments; the style sheet its layout whitespace (indentation, line
// breaks, the blanks after `{ ; , :` and around `}`; style/main.css has no comments, and none of
// those characters inside strings or selectors).
//
// Each build has one page (index.html, or practice.html for the practice page's build, see
// scripts/build.sh); every .html file in the staging directory is treated the same way.
//
// Run by Trunk with cwd = the project root; env: TRUNK_STAGING_DIR, TRUNK_PUBLIC_URL.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const staging = process.env.TRUNK_STAGING_DIR;
if (!staging) {
  console.error('csp-bootstrap: TRUNK_STAGING_DIR is not set (run me as a Trunk post_build hook)');
  process.exit(1);
}
const publicUrl = (process.env.TRUNK_PUBLIC_URL || '/').replace(/\/?$/, '/');

// The page's static header (the first view) paints first: the app's wasm is requested once the
// browser reports that paint (the first-contentful-paint entry, which comes after the frame is on
// screen). Why wait for that: Lighthouse's simulated LCP (Lantern) counts every request that ended
// before the largest paint of the observed load, whatever its priority, as a dependency of that
// paint, and here the largest paint is the header's. Requested as the script ran, or after the
// frame's main-thread work (requestAnimationFrame, then a task), the wasm's download sometimes
// ended before the paint's reported time, and that run's LCP was 2.85 s instead of 1.05 s (score
// 96). Requested after the report, it cannot. Where no such report will come the script waits for
// the frame instead: a browser without paint timing, and the embed view, whose header
// assets/first-view.js hides (nothing is painted before the app). A hidden tab paints nothing and
// starts at once; 1 s at most in any case.
const PAINT_FIRST = `await new Promise((go) => {
  setTimeout(go, document.visibilityState === 'hidden' ? 0 : 1000);
  const reported = PerformanceObserver.supportedEntryTypes?.includes('paint');
  if (!reported || document.documentElement.classList.contains('embed-view')) {
    requestAnimationFrame(() => setTimeout(go, 0));
    return;
  }
  new PerformanceObserver((entries, observer) => {
    if (entries.getEntriesByName('first-contentful-paint').length) {
      observer.disconnect();
      go();
    }
  }).observe({ type: 'paint', buffered: true });
});
`;

// The download, begun after PAINT_FIRST and handed to wasm-bindgen's `init` as a promise of the
// response, which it streams into the compiler (or reads whole where the server's MIME type is
// wrong). The empty `catch` only keeps a failed download from being reported twice (once unhandled
// before `init` awaits it): `init` awaits the same promise and fails with its error.
const startDownload = (q, url) =>
  `const wasmDownload = fetch(new URL(${q}${url}${q}, import.meta.url));\nwasmDownload.catch(() => {});\n`;

function moveBootstrap(page) {
  const htmlPath = path.join(staging, page);
  let html = readFileSync(htmlPath, 'utf8');

  // Inline scripts: <script …> without a src attribute, with a body.
  const inlineScript = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
  const isInline = (attrs, body) => !/\bsrc\s*=/.test(attrs) && body.trim() !== '';

  let moved = 0;
  html = html.replace(inlineScript, (whole, attrs, body) => {
    if (!isInline(attrs, body) || !/\bimport\s+init\b/.test(body)) return whole;
    if (!/type\s*=\s*["']?module/.test(attrs)) return whole;
    let download = null;
    const source = body.trim().replace(/module_or_path:\s*(['"])(\.\/[^'"]+)\1/, (_, q, url) => {
      download = startDownload(q, url);
      return 'module_or_path: wasmDownload';
    });
    if (!download) return whole; // left inline, so reported below: not the bootstrap this hook knows
    const code = `// Generated by scripts/csp-bootstrap.mjs from Trunk's inline bootstrap.\n${PAINT_FIRST}${download}${source}\n`;
    const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
    const name = `bootstrap-${hash}.js`;
    writeFileSync(path.join(staging, name), code);
    moved += 1;
    return `<script type="module" src="${publicUrl}${name}"></script>`;
  });

  const inlined = { script: [], style: [] };
  for (const [kind, how] of Object.entries(WRITTEN_IN)) {
    html = html.replace(how.tag, (whole, before, after) => {
      const attrs = `${before} ${after}`;
      const file = attrs.match(how.file)?.[1];
      if (!file || !how.fits(attrs)) return whole; // reported below
      const code = how.text(readFileSync(file, 'utf8'), file);
      if (new RegExp(`</${kind}`, 'i').test(code)) return whole;
      inlined[kind].push(sha256(code));
      return `<${kind}>${code}</${kind}>`;
    });
  }
  const directive = (name) =>
    new RegExp(`(<meta\\s+http-equiv="Content-Security-Policy"\\s+content="[^"]*\\b${name}\\s[^;"]*)`, 'i');
  for (const [kind, hashes] of Object.entries(inlined)) {
    if (hashes.length) html = html.replace(directive(`${kind}-src`), (found) => `${found} ${hashes.join(' ')}`);
  }

  // The wasm is fetched by the bootstrap (startDownload), not preloaded.
  const preload = /\s*<link\b[^>]*\brel="preload"[^>]*\.wasm"[^>]*>/gi;
  const preloads = [...html.matchAll(preload)].length;
  html = html.replace(preload, '');

  const leftovers = [...html.matchAll(inlineScript)].filter(([, attrs, body]) => isInline(attrs, body));
  const problems = [];
  if (moved !== 1) problems.push(`expected exactly one Trunk bootstrap script, moved ${moved}`);
  if (preloads !== 1) problems.push(`expected one wasm preload link in ${page}, found ${preloads}`);
  const allowed = new Set(inlined.script);
  for (const [whole, , body] of leftovers) {
    if (allowed.has(sha256(body))) continue;
    if (body.includes('__TRUNK_')) {
      // `trunk serve` injects an inline live-reload script; the policy blocks it (reload by hand).
      console.warn('csp-bootstrap: the CSP blocks trunk serve\'s inline live-reload script');
    } else {
      problems.push(`inline script left in ${page} (blocked by the CSP): ${whole.slice(0, 120)}…`);
    }
  }
  if (publicUrl.startsWith('.')) {
    const rooted = [...html.matchAll(/\b(?:src|href)\s*=\s*["']?(\/[^\/"'][^"'\s>]*)/gi)].map((m) => m[1]);
    if (rooted.length) problems.push(`${page} names /-rooted URLs, which break under a sub-path: ${rooted.join(', ')}`);
  }
  if (!/<meta\s+http-equiv="Content-Security-Policy"/i.test(html)) {
    problems.push(`${page} has no Content-Security-Policy meta tag`);
  } else {
    for (const [kind, hashes] of Object.entries(inlined)) {
      if (hashes.some((hash) => !directive(`${kind}-src`).exec(html)?.[1].includes(hash))) {
        problems.push(`${page}: the policy's ${kind}-src does not list what was written into the page`);
      }
    }
  }
  const unhandled = html.match(/<(?:script|link)\b[^>]*\bdata-inline\b[^>]*>/i);
  if (unhandled) {
    problems.push(`${page}: data-inline needs a classic script with a src, or a stylesheet link, whose text has no end tag: ${unhandled[0]}`);
  }
  if (problems.length) {
    console.error(`csp-bootstrap: ${problems.join('\n  ')}`);
    process.exit(1);
  }
  writeFileSync(htmlPath, html);
  console.log(`csp-bootstrap: moved the inline bootstrap into a separate file in ${staging}; wrote ` +
    `${inlined.script.length} script(s) and ${inlined.style.length} style sheet(s) into ${page}`);
}

/** The CSP source that allows exactly `text`: its sha256, base64. */
const sha256 = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** A script without its whole-line comments, which the file keeps for its readers. */
const scriptText = (source) =>
  source
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .join('\n')
    .trim();

/** A style sheet without its layout whitespace. */
const styleText = (css) =>
  css
    .split('\n')
    .map((line) => line.trim())
    .join('')
    .replace(/\s*([{}])\s*/g, '$1')
    .replace(/([;,:])\s+/g, '$1');

/** What the build writes into a page, by the element it becomes (which names its CSP directive,
 * `<kind>-src`): the `data-inline` tag, the attribute naming its file, which tags qualify, and the
 * text written in. */
const WRITTEN_IN = {
  script: {
    tag: /<script\b([^>]*)\bdata-inline\b([^>]*)><\/script>/gi,
    file: /\bsrc="([^"]+)"/,
    fits: (attrs) => !/\btype\s*=/.test(attrs), // a classic script
    text: scriptText,
  },
  style: {
    tag: /<link\b([^>]*)\bdata-inline\b([^>]*)>/gi,
    file: /\bhref="([^"]+)"/,
    fits: (attrs) => /\brel="stylesheet"/.test(attrs),
    text: (css, file) => {
      if (css.includes('/*')) {
        console.error(`csp-bootstrap: ${file} has comments; extend styleText or remove them`);
        process.exit(1);
      }
      return styleText(css);
    },
  },
};

const pages = readdirSync(staging).filter((name) => name.endsWith('.html'));
if (pages.length !== 1) {
  console.error(`csp-bootstrap: expected one page in ${staging}, found ${pages.join(', ') || 'none'}`);
  process.exit(1);
}
pages.forEach(moveBootstrap);
