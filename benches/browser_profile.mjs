// The --profile part of benches/browser.mjs (scripts/bench.sh runs it, not a test): a V8 sampling
// profile (CDP Profiler) and a trace (CDP Tracing) of a scenario's inputs, summarised (main-thread
// time by kind of work from the trace, app functions from the profile) and printed.
// Its two options are read here, from the same command line as browser.mjs's:
//   --profile-top N (default 25): functions per profile table;
//   --trace-categories a,b,… (default TRACE_CATEGORIES below): the trace's categories.
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};

const PROFILE_TOP = Number(opt('profile-top', 25));

export async function startProfile(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  return cdp;
}

const TRACE_CATEGORIES = opt('trace-categories', 'toplevel,devtools.timeline,v8.execute,cc,blink');

/** Starts a trace of the page's main thread (CDP Tracing); returns the list its events go to. */
export async function startTrace(cdp) {
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', { categories: TRACE_CATEGORIES, transferMode: 'ReportEvents' });
  return events;
}

/**
 * What kind of main-thread work a trace event is, by its name, or null when the name does not
 * say (task wrappers, and the many blink and cc events inside the named ones: those count as the
 * kind of their nearest named ancestor).
 */
function traceKind(name) {
  if (/^(UpdateLayoutTree|RecalculateStyles|ParseAuthorStyleSheet)$/.test(name)) return 'style';
  if (/^(Layout|LocalFrameView::performLayout|ComputeIntersections|IntersectionObserverController::computeIntersections)$/.test(name)) {
    return 'layout';
  }
  if (/^(PrePaint|Paint|PaintImage|Layerize|Commit|UpdateLayer|UpdateLayerTree|CompositeLayers|Decode Image)$/.test(name)) return 'paint';
  // The frame's compositing: cc's layer update and commit, canvas contents handed to the compositor.
  if (/^(ProxyMain::BeginMainFrame|LayerTreeHost::|Canvas2DResourceProvider|CanvasResource|Blink\.(PrePaint|Paint|CompositingInputs))/.test(name)) {
    return 'paint';
  }
  if (/GC|GarbageCollect/.test(name)) return 'gc';
  if (/^(EventDispatch|FunctionCall|FireAnimationFrame|TimerFire|HandlePostMessage|RunMicrotasks|EvaluateScript)$/.test(name) || /^v8\.|^V8\./.test(name)) {
    return 'script';
  }
  if (/^(EventHandler::|HitTest|WidgetBaseInputHandler|WebFrameWidgetImpl::HandleInputEvent|InputHandlerProxy)/.test(name)) return 'input routing';
  return null;
}

/**
 * Ends the trace and sums the renderer main thread's self time by kind of work (script, style,
 * layout, paint, gc, other) and by event name, over the tasks that handled an input event or drew a
 * frame (the work an input sets off and the frame that shows it; the bench's own page.evaluate
 * calls run in tasks of their own and are reported apart, as "other tasks").
 */
export async function stopTrace(cdp, events, updates) {
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.end');
  await done;
  // The page's main thread: the CrRendererMain thread with the most events.
  const mains = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const count = new Map();
  for (const e of events) if (mains.has(`${e.pid}:${e.tid}`)) count.set(`${e.pid}:${e.tid}`, (count.get(`${e.pid}:${e.tid}`) || 0) + 1);
  const main = [...count.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const spans = events
    .filter((e) => e.ph === 'X' && typeof e.dur === 'number' && `${e.pid}:${e.tid}` === main)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur)
    .map((e) => ({ name: e.name, ts: e.ts, end: e.ts + e.dur, dur: e.dur, children: 0, task: null, kind: null, forced: false }));
  // Nesting: self time = duration − the children's durations; each span belongs to its top-level task.
  const stack = [];
  const tasks = [];
  for (const sp of spans) {
    while (stack.length && stack[stack.length - 1].end <= sp.ts) stack.pop();
    const parent = stack[stack.length - 1];
    const own = traceKind(sp.name);
    sp.kind = own ?? parent?.kind ?? null;
    // Style or layout that script asked for (reading a size, setting a canvas font) is forced:
    // it runs synchronously inside the script, not in the frame's rendering steps.
    sp.forced = (own === 'style' || own === 'layout') && parent?.kind === 'script';
    if (sp.forced) sp.kind = `${own}, forced by script`;
    else if (parent?.forced) sp.kind = parent.kind;
    if (parent) {
      parent.children += sp.dur;
      sp.task = parent.task;
    } else {
      sp.task = { kinds: new Set(), spans: [] };
      tasks.push(sp.task);
    }
    sp.task.spans.push(sp);
    sp.task.kinds.add(sp.name === 'EventDispatch' ? 'input' : own);
    stack.push(sp);
  }
  const byKind = new Map();
  const byName = new Map();
  let otherTasksMs = 0;
  for (const task of tasks) {
    const counted = task.kinds.has('input') || task.kinds.has('style') || task.kinds.has('layout') || task.kinds.has('paint');
    for (const sp of task.spans) {
      const selfMs = (sp.dur - sp.children) / 1000;
      if (!counted) {
        otherTasksMs += selfMs;
        continue;
      }
      const kind = sp.kind ?? 'other (task time outside the events above)';
      byKind.set(kind, (byKind.get(kind) || 0) + selfMs);
      byName.set(`${sp.name} (${kind})`, (byName.get(`${sp.name} (${kind})`) || 0) + selfMs);
    }
  }
  const countedMs = [...byKind.values()].reduce((a, b) => a + b, 0);
  const rank = (m, top) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, t]) => ({ name, ms: t, perUpdateMs: t / updates, share: (100 * t) / countedMs }));
  return {
    categories: TRACE_CATEGORIES,
    updates,
    countedMs,
    perUpdateMs: countedMs / updates,
    otherTasksPerUpdateMs: otherTasksMs / updates,
    byKind: rank(byKind, 10),
    byName: rank(byName, 15),
  };
}

/**
 * Stops the profiler and summarises the samples whose call stack runs app code (wasm, or the
 * wasm-bindgen glue): that is the compute+draw work the timing hook measures, without idle time,
 * browser-native painting or Playwright. Self time per function, and inclusive time of the Rust
 * functions (each counted once per sample it is on the stack of).
 */
export async function stopProfile(cdp, updates) {
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const isWasm = (cf) => cf.url.endsWith('.wasm') || cf.url.startsWith('wasm://');
  const isApp = (cf) => isWasm(cf) || /(attention-explorer|practice|train)-[0-9a-f]+\.js$/.test(cf.url);
  const nameOf = (cf) => (cf.functionName || `(anonymous ${cf.url.split('/').pop()}:${cf.lineNumber})`).replace(/::h[0-9a-f]{16}$/, '');
  const self = new Map();
  const incl = new Map();
  // Every sample by what its leaf is: wasm, the app's JS glue, a browser function the app called
  // (DOM, canvas, string decoding), the garbage collector, the browser itself outside JS
  // ("(program)": input routing, style, layout, paint, IPC), idle, or other JS (Playwright's).
  const leafKinds = new Map();
  const leafKind = (stack) => {
    const leaf = stack[0];
    if (isWasm(leaf)) return 'wasm';
    if (isApp(leaf)) return 'app JS glue';
    if (/^\((program|garbage collector|idle|root)\)$/.test(leaf.functionName)) return leaf.functionName;
    if (stack.some(isApp)) return 'browser functions called by app code';
    return 'other JS (bench, Playwright)';
  };
  const dt = profile.timeDeltas || [];
  let appMs = 0;
  let totalMs = 0;
  (profile.samples || []).forEach((id, k) => {
    const ms = Math.max(0, dt[k] || 0) / 1000; // a few deltas are negative (samples out of order)
    totalMs += ms;
    const stack = [];
    for (let n = id; n !== undefined; n = parent.get(n)) stack.push(byId.get(n).callFrame);
    const kind = leafKind(stack);
    leafKinds.set(kind, (leafKinds.get(kind) || 0) + ms);
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
  const kinds = [...leafKinds.entries()].sort((a, b) => b[1] - a[1]).map(([name, t]) => ({ name, ms: t, perUpdateMs: t / updates }));
  return { totalMs, appMs, updates, appMsPerUpdate: appMs / updates, kinds, self: rank(self), inclusive: rank(incl) };
}

/** Prints a profile (stopProfile + stopTrace) of `what`. */
export function printProfile(what, prof) {
  const row = (f) => `  ${f.perUpdateMs.toFixed(3).padStart(8)}${f.share === undefined ? '' : ` ${f.share.toFixed(1).padStart(5)}%`}  ${f.name}`;
  const t = prof.trace;
  console.log(
    `\nTrace, ${what}: ${t.updates} updates; main-thread tasks that handled the input or drew a frame: ` +
      `${t.perUpdateMs.toFixed(2)} ms per update (other tasks, e.g. the bench's own calls: ${t.otherTasksPerUpdateMs.toFixed(2)} ms)`,
  );
  console.log('  by kind of work (self time)         ms/update  share');
  for (const f of t.byKind) console.log(row(f));
  console.log('  by trace event (self time)          ms/update  share');
  for (const f of t.byName) console.log(row(f));
  console.log(
    `CPU profile, ${what}: app code on the stack ${prof.appMs.toFixed(0)} ms = ${prof.appMsPerUpdate.toFixed(2)} ms per update ` +
      `(of ${prof.totalMs.toFixed(0)} ms sampled; the profiler slows wasm down)`,
  );
  console.log('  every sample by its leaf            ms/update');
  for (const f of prof.kinds) console.log(row(f));
  console.log('  self time (leaf function)           ms/update  share');
  for (const f of prof.self) console.log(row(f));
  console.log('  inclusive time (Rust functions)     ms/update  share');
  for (const f of prof.inclusive) console.log(row(f));
}
