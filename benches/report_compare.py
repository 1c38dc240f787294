"""The parts of BENCHMARKS.md that `scripts/bench.sh --compare` rewrites, for benches/report.py.

The targets, the machine table, section 2 (browser), section 3 (code per page, Lighthouse) and the CPU
profile's text, which the full report (benches/report.py BENCH_DIR) uses too; then the --compare mode
itself: the before/after table of two builds, and the rewrite of those parts of BENCHMARKS.md from
BENCH_DIR/compare (benches/report.py BENCH_DIR --compare BENCHMARKS.md, or --compare-summary).
"""
import json
import os

# The speed targets. Slider: p95 of input → end of the frame's layout and paint (benches/browser.mjs).
SLIDER_TARGETS = {"default": 3.0, "64t-8h": 6.0, "256t-8h": 10.0}
TARGETS = {
    "nav_ms": 150.0,  # navigation → first heatmap pixel (first view), median, every page
    "lighthouse_score": 98,  # Lighthouse mobile performance, every page
    "lcp_ms": 1500.0,
    "tbt_ms": 100.0,
    # Code per page, gzip -9, as scripts/budget.mjs counts it; up to 350,000 for a page it names
    # (ALLOWANCE) while that page's Lighthouse score stays >= 98.
    "page_gzip_bytes": 300_000,
    "page_gzip_allowed_bytes": 350_000,
}
PAGE_ORDER = ("index.html", "practice.html", "train.html")
PAGE_LABEL = {"index.html": "explorer (index.html)", "practice.html": "practice.html", "train.html": "train.html"}


def load(d, name, default=None):
    p = os.path.join(d, name)
    if not os.path.exists(p):
        return default
    with open(p) as f:
        return f.read() if name.endswith(".txt") else json.load(f)


def machine(d):
    out = {}
    for line in (load(d, "machine.txt", "") or "").splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def ms(v):
    return "—" if v is None else f"{v:.2f}"


def ok(flag):
    return "**met**" if flag else "**missed**"


# ---- browser, code and Lighthouse figures, shared by the full report and --compare ----------------

def median(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def p95(values):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, -(-95 * len(v) // 100) - 1))] if v else None


def pool_browser(runs):
    """Scenarios and navigation of several benches/browser.mjs runs of one build, samples pooled."""
    scen, nav = {}, {}
    for run in runs:
        for s in run.get("scenarios", []):
            e = scen.setdefault(s["id"], {"id": s["id"], "label": s["label"], "frame": [], "latency": [], "compute": [],
                                          "rows_frame": [], "rows_compute": [], "misses": 0, "churn": s.get("churn")})
            e["frame"] += s.get("sliderFrame", {}).get("samples", [])
            e["latency"] += s.get("sliderLatency", {}).get("samples", [])
            e["compute"] += s["slider"].get("samples", [])
            e["rows_frame"] += s.get("rowsFrame", {}).get("samples", [])
            e["rows_compute"] += s.get("rows", {}).get("samples", [])
            e["misses"] += s["slider"].get("misses", 0)
        for n in run.get("navigation", []):
            key = n.get("id", n["label"])
            e = nav.setdefault(key, {"id": key, "label": n["label"], "samples": [], "drawn": [], "html": [], "wasm": [],
                                     "fcp": [], "wasm_bytes": n.get("wasmTransferBytes")})
            e["samples"] += n.get("samples", [])
            e["drawn"].append(n.get("medianDrawn"))
            e["html"].append(n.get("medianResponseEnd"))
            e["wasm"].append(n.get("medianWasmFetched"))
            e["fcp"].append(n.get("medianFirstContentfulPaint"))
    return scen, nav


def pool_lighthouse(runs):
    """Per page: every Lighthouse run of one build (several lighthouse.mjs outputs), and medians."""
    pages = {}
    for run in runs:
        for page, v in run.get("pages", {}).items():
            e = pages.setdefault(page, {"runs": [], "lcpElement": v.get("lcpElement")})
            e["runs"] += [r for r in v["runs"] if r.get("score") is not None]
    for e in pages.values():
        e["median"] = {k: median([r.get(k) for r in e["runs"]]) for k in ("score", "lcp", "tbt", "cls", "fcp", "si")}
    return pages


def nav_order(nav):
    order = ["explorer", "explorer-canvas", "practice", "training", "training-chart", "explorer-256t-8h"]
    return sorted(nav.values(), key=lambda n: order.index(n["id"]) if n["id"] in order else 99)


def target_rows(scen, nav, sizes, lh):
    """(name, goal, measured, met or None, value, goal value, unit) for each target with data."""
    rows = []
    for sid, goal in SLIDER_TARGETS.items():
        s = scen.get(sid)
        if s and s["frame"]:
            v = p95(s["frame"])
            rows.append((f"Slider, {s['label']}: input → end of frame's layout + paint, p95", f"≤ {goal:g} ms",
                         f"{v:.2f} ms (median {median(s['frame']):.2f} ms, n = {len(s['frame'])})", v <= goal, v, goal, "ms"))
    floor = scen.get("floor")
    if floor and floor["frame"]:
        # Not a target: the same measurement on a static page doing the default view's visible work.
        v = p95(floor["frame"])
        rows.append(("Slider, the frame floor (`benches/frame_floor.html`: what a step redraws and changes on the default "
                     "view, in plain JavaScript, no wasm): input → end of frame, p95", "— (reference)",
                     f"{v:.2f} ms (median {median(floor['frame']):.2f} ms, n = {len(floor['frame'])})", None, v, None, "ms"))
    for n in nav_order(nav):
        # Not targets: a large view, the explorer's canvas once its written picture has painted, and
        # the training page's loss chart, below its first screen.
        if n["id"] in ("explorer-256t-8h", "explorer-canvas", "training-chart") or not n["samples"]:
            continue
        v = median(n["samples"])
        what = "first screen (the controls)" if n["id"] == "training" else "first heatmap pixel"
        rows.append((f"Navigation → {what}, {n['id']}, median", f"≤ {TARGETS['nav_ms']:g} ms", f"{v:.1f} ms (n = {len(n['samples'])})",
                     v <= TARGETS["nav_ms"], v, TARGETS["nav_ms"], "ms"))
    for page in PAGE_ORDER:
        m = (lh.get(page) or {}).get("median")
        if m and m["score"] is not None:
            runs = len(lh[page]["runs"])
            rows.append((f"Lighthouse mobile, {page}: performance score (median of {runs})", f"≥ {TARGETS['lighthouse_score']}",
                         f"{m['score']:g}", m["score"] >= TARGETS["lighthouse_score"], m["score"], TARGETS["lighthouse_score"], "points"))
            rows.append((f"Lighthouse mobile, {page}: LCP (median)", f"≤ {TARGETS['lcp_ms']:g} ms", f"{m['lcp']:.0f} ms",
                         m["lcp"] <= TARGETS["lcp_ms"], m["lcp"], TARGETS["lcp_ms"], "ms"))
            rows.append((f"Lighthouse mobile, {page}: TBT (median)", f"≤ {TARGETS['tbt_ms']:g} ms", f"{m['tbt']:.0f} ms",
                         m["tbt"] <= TARGETS["tbt_ms"], m["tbt"], TARGETS["tbt_ms"], "ms"))
    for page in PAGE_ORDER:
        p = (sizes.get("pages") or {}).get(page)
        if not p:
            continue
        score = ((lh.get(page) or {}).get("median") or {}).get("score")
        allowed = TARGETS["page_gzip_bytes"]
        note = ""
        if p["gzip"] > allowed and p.get("allowance"):
            allowed = TARGETS["page_gzip_allowed_bytes"]
            note = f"; named in scripts/budget.mjs, so up to 350,000 B while Lighthouse ≥ 98 (median score {'—' if score is None else f'{score:g}'})"
            if score is not None and score < TARGETS["lighthouse_score"]:
                allowed = TARGETS["page_gzip_bytes"]
        rows.append((f"Code per page, {page} (gzip)", "≤ 300,000 B (350,000 B if named and Lighthouse ≥ 98)",
                     f"{p['gzip']:,} B{note}", p["gzip"] <= allowed, p["gzip"] / 1000, allowed / 1000, "kB"))
    return rows


def targets_table(rows):
    L = ["| target | goal | measured | |", "|---|---|---|---|"]
    for name, goal, measured, met, val, gval, unit in rows:
        extra = ""
        if met is False:
            over = val - gval
            pct = 100 * abs(over) / gval
            extra = f" ({'over' if over > 0 else 'under'} by {abs(over):.1f} {unit}, {pct:.0f} %)" if unit != "points" \
                else f" ({abs(over):g} points short)"
        L.append(f"| {name} | {goal} | {measured} | {'reported' if met is None else ok(met)}{extra} |")
    return L


def browser_section(scen, nav, chromium, where):
    L = []
    w = L.append
    w("## 2. Browser: slider updates and navigation")
    w("")
    w(f"{where} Chromium {chromium} headless, 1280×800 viewport, device pixel ratio 1, driven by Playwright with real "
      "mouse input (`benches/browser.mjs`); the server sends gzip. Slider: mouse down on the #temperature thumb, then "
      "2 px `mouse.move` steps back and forth; an input that redrew nothing is not counted. Per step:")
    w("")
    w("- **input → end of frame** (the speed targets): from the `input` event (`performance.now()` in a capture "
      "listener the bench installs) to the end of the layout and paint of the frame that shows it (a user-blocking task posted "
      "from that frame's `requestAnimationFrame` callback, run after its style, layout, paint and commit on the "
      "main thread), without the wait for that frame: compute + draw, plus the frame's rendering from its rAF "
      "callbacks on. Playwright's events arrive anywhere in the 16.7 ms frame interval, while a real drag's "
      "`mousemove` events are dispatched just before a frame; *with wait* is the raw delivery − input.")
    w("- **compute + draw**: the app's timing hook (`window.__aeTiming`): input → the first task after the last "
      "Leptos effect the input set off (model update, DOM updates, every canvas redrawn; no style, layout or paint).")
    w("")
    w("`performance.now()` is coarsened by Chromium to 0.1 ms.")
    w("")
    w("| view | slider steps | input → end of frame: median | p95 | with wait: median | compute + draw: median | p95 |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for s in scen.values():
        if not s["frame"]:
            continue
        w(f"| {s['label']} | {len(s['frame'])} | {ms(median(s['frame']))} ms | **{ms(p95(s['frame']))} ms** | "
          f"{ms(median(s['latency']))} ms | {ms(median(s['compute']))} ms | {ms(p95(s['compute']))} ms |")
    w("")
    if scen.get("floor", {}).get("frame"):
        w("*Frame floor* is not the app: `benches/frame_floor.html` redraws what a slider step redraws on the default "
          "view (the heatmap, 506 × 529 CSS px with its labels, and the row's bars; the thumbnails are below the screen "
          "and are not redrawn) and makes about as many text and attribute changes per step, in a few lines of plain "
          "JavaScript, measured the same way. The app's default view minus the floor is what the app adds; the floor "
          "is what this machine's Chromium needs for such a frame, whatever the page.")
        w("")
    if any(s["rows_frame"] for s in scen.values()):
        w("Row clicks on the main heatmap (a different row each time), same two times:")
        w("")
        w("| view | clicks | input → end of frame: median | p95 | compute + draw: median | p95 |")
        w("|---|---:|---:|---:|---:|---:|")
        for s in scen.values():
            if s["rows_frame"]:
                w(f"| {s['label']} | {len(s['rows_frame'])} | {ms(median(s['rows_frame']))} ms | {ms(p95(s['rows_frame']))} ms | "
                  f"{ms(median(s['rows_compute']))} ms | {ms(p95(s['rows_compute']))} ms |")
        w("")
    churn = [s for s in scen.values() if s.get("churn")]
    if churn:
        w("DOM changes per update, by page section (a MutationObserver, in a separate untimed pass of 20 slider steps "
          "and 20 row clicks): added + removed nodes, text changes, attribute changes.")
        w("")
        w("| view | elements on page | slider step | row click |")
        w("|---|---:|---|---|")
        show = lambda o: ", ".join(f"{k}: {v:.0f}" for k, v in sorted(o.items(), key=lambda kv: -kv[1]) if v >= 0.5) or "none"
        for s in churn:
            c = s["churn"]
            w(f"| {s['label']} | {c['elements']} | {show(c['slider'])} | {show(c['rows'])} |")
        w("")
    if nav:
        w("Navigation → first view: from navigation start (0) to the end of the first frame that shows the page's first "
          "drawing: on the explorer and the practice page the default heatmap that the page's HTML holds "
          "(`.static-heatmap`, written at build time from the model, `src/first_view/`; the app's canvas takes "
          "its place, timed as `explorer-canvas`), on the training page what a wide screen's first screen shows under "
          "the header, its settings and buttons (`fieldset.model`, written into train.html the same way; its loss chart "
          "with step 0's evaluation, below the first screen, is timed as `training-chart`), never earlier than the "
          "first contentful paint. A MutationObserver "
          "installed with `addInitScript` sees the element; the frame after it is timed as above. A fresh browser "
          "context per load (no cache; the server sends `Cache-Control: no-store`), gzip, no throttling.")
        w("")
        w("| page | loads | median | min | max | drawn (median) | HTML received | wasm received | first contentful paint |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n in nav_order(nav):
            if n["samples"]:
                w(f"| {n['label']} | {len(n['samples'])} | **{ms(median(n['samples']))} ms** | {ms(min(n['samples']))} ms | "
                  f"{ms(max(n['samples']))} ms | {ms(median(n['drawn']))} ms | {ms(median(n['html']))} ms | "
                  f"{ms(median(n['wasm']))} ms | {ms(median(n['fcp']))} ms |")
        w("")
    return L


def pages_and_lighthouse(sizes, lh, lh_version):
    """Section 3's code per page and Lighthouse tables."""
    L = []
    w = L.append
    if sizes.get("pages"):
        w("Code per page (`benches/page_sizes.mjs`, counted as `scripts/budget.mjs` counts it: every .js, .wasm and .css "
          "the page names, plus the service worker `sw.js`; `gzip -9`). Budget: 300,000 B per page, up to 350,000 B for "
          "a page `scripts/budget.mjs` names, while its Lighthouse score stays ≥ 98.")
        w("")
        w("| page | files | raw | gzip |")
        w("|---|---|---:|---:|")
        for page in PAGE_ORDER:
            p = sizes["pages"].get(page)
            if p:
                files = ", ".join(f"`{f['file']}` {f['gzip']:,}" for f in p["files"])
                w(f"| {page} | {files} | {p['raw']:,} B | **{p['gzip']:,} B** |")
        w("")
    if lh:
        w(f"Lighthouse {lh_version or ''} mobile (`benches/lighthouse.mjs`: performance category only, Lighthouse's default "
          "mobile settings: simulated slow 4G and 4× CPU slowdown), served with gzip from 127.0.0.1, the pages taking turns. "
          "Median of the runs (Lighthouse scores each run from its own simulated load; LCP and TBT are those simulated "
          "times).")
        w("")
        w("| page | runs | score (median) | scores | LCP | TBT | FCP | Speed Index | CLS | LCP element |")
        w("|---|---:|---:|---|---:|---:|---:|---:|---:|---|")
        for page in PAGE_ORDER:
            e = lh.get(page)
            if e and e["runs"]:
                m = e["median"]
                scores = ", ".join(f"{r['score']}" for r in e["runs"])
                el = (e.get("lcpElement") or "—").replace("|", "\\|")
                w(f"| {page} | {len(e['runs'])} | **{m['score']:g}** | {scores} | {m['lcp']:.0f} ms | {m['tbt']:.0f} ms | "
                  f"{m['fcp']:.0f} ms | {m['si']:.0f} ms | {m['cls']:.3f} | {el} |")
        w("")
    else:
        w("Lighthouse: not run (set `LIGHTHOUSE=/path/to/lighthouse`, or install it into `target/bench/lighthouse`; see "
          "`scripts/bench.sh --help`).")
        w("")
    return L


def cpu_profile_section(text, what):
    L = ["### Where the update time goes (CPU profile)", ""]
    L.append(what)
    L.append("")
    L += ["```", text.rstrip(), "```", ""]
    return L


def machine_table(m):
    L = ["| | |", "|---|---|"]
    for key, label in (("nproc", "cores (`nproc`)"), ("cpu", "CPU"), ("cpu_flags", "CPU SIMD flags"), ("memory", "memory"),
                       ("os", "OS"), ("rustc", "rustc"), ("chromium", "Chromium"), ("node", "Node"), ("python", "Python"),
                       ("numpy", "NumPy"), ("trunk", "Trunk"), ("wasm_opt", "wasm-opt"), ("lighthouse", "Lighthouse"),
                       ("load_before", "load average before the run (1/5/15 min)"), ("load_after", "load average after the run")):
        if m.get(key):
            L.append(f"| {label} | {m[key]} |")
    return L


def load_note(m):
    def first(key):
        try:
            return float(m.get(key, "0").split()[0])
        except (ValueError, IndexError):
            return 0.0
    if max(first("load_before"), first("load_after")) > 0.5 * float(m.get("nproc", "2") or 2):
        return [f"> The machine was not idle during this run (1-minute load average {first('load_before')} before, "
                f"{first('load_after')} after, on {m.get('nproc')} cores: this run's own browser, and whatever else was running). "
                "Timings are inflated by that, p95 values and navigation most; treat them as upper bounds.", ""]
    return []


# ---- --compare ------------------------------------------------------------------------------------

def compare_data(d):
    c = os.path.join(d, "compare")
    out = {"machine": machine(c)}
    for b in ("old", "new"):
        br = [load(c, f"browser-{b}-{r}.json") for r in (1, 2)]
        lh = [load(c, f"lighthouse-{b}-{r}.json") for r in (1, 2)]
        out[b] = {
            "browser_rounds": [pool_browser([x]) if x else ({}, {}) for x in br],
            "browser": pool_browser([x for x in br if x]),
            "lh_rounds": [pool_lighthouse([x]) if x else {} for x in lh],
            "lh": pool_lighthouse([x for x in lh if x]),
            "lh_version": next((x.get("lighthouse") for x in lh if x), None),
            "sizes": load(c, f"sizes-{b}.json", {}),
            "chromium": next((x.get("chromium") for x in br if x), "?"),
        }
    out["profile"] = load(c, "profile-new.txt", "")
    return out


def compare_table(cd):
    """The before/after table: each measure per round and both rounds pooled, OLD and NEW."""
    def fmt(v, unit):
        if v is None:
            return "—"
        return f"{v:,.0f} B" if unit == "B" else f"{v:g}" if unit == "" else f"{v:.0f} ms" if unit == "ms0" else f"{v:.2f} ms"

    rows = []  # (measure, target, [old r1, old r2, new r1, new r2], old, new, unit, lower is better)
    def scen_value(pooled, sid, key, fn):
        s = pooled[0].get(sid)
        return fn(s[key]) if s and s[key] else None
    labels = {"default": "default view (7 tokens, 2 heads)", "64t-8h": "64 tokens × 8 heads", "256t-8h": "256 tokens × 8 heads",
              "floor": "frame floor (static page, the same in both builds: the machine's drift)"}
    for sid, goal in {**SLIDER_TARGETS, "floor": None}.items():
        for key, fn, what, target in (("frame", p95, "input → end of frame, p95", f"≤ {goal:g} ms" if goal else "—"),
                                      ("frame", median, "input → end of frame, median", ""),
                                      ("compute", p95, "compute + draw, p95", "")):
            rows.append((f"Slider, {labels[sid]}: {what}", target,
                         [scen_value(cd[b]["browser_rounds"][r], sid, key, fn) for b in ("old", "new") for r in (0, 1)],
                         scen_value(cd["old"]["browser"], sid, key, fn), scen_value(cd["new"]["browser"], sid, key, fn), "ms"))
    nav_labels = {"explorer": "explorer: first heatmap pixel", "practice": "practice: first heatmap pixel",
                  "training": "training page: first screen (the controls)",
                  "training-chart": "training page: loss chart drawn (below the first screen)"}
    def nav_value(pooled, nid):
        n = pooled[1].get(nid)
        return median(n["samples"]) if n and n["samples"] else None
    for nid, label in nav_labels.items():
        goal = "—" if nid == "training-chart" else f"≤ {TARGETS['nav_ms']:g} ms"
        rows.append((f"Navigation → {label}, median", goal,
                     [nav_value(cd[b]["browser_rounds"][r], nid) for b in ("old", "new") for r in (0, 1)],
                     nav_value(cd["old"]["browser"], nid), nav_value(cd["new"]["browser"], nid), "ms"))
    def lh_value(lh, page, key):
        m = (lh.get(page) or {}).get("median")
        return m.get(key) if m else None
    for page in PAGE_ORDER:
        for key, what, target, unit in (("score", "score", "≥ 98", ""), ("lcp", "LCP", "≤ 1,500 ms", "ms0"),
                                        ("tbt", "TBT", "≤ 100 ms", "ms0")):
            rows.append((f"Lighthouse mobile, {page}: {what} (median)", target,
                         [lh_value(cd[b]["lh_rounds"][r], page, key) for b in ("old", "new") for r in (0, 1)],
                         lh_value(cd["old"]["lh"], page, key), lh_value(cd["new"]["lh"], page, key), unit))
    for page in PAGE_ORDER:
        size = lambda b: ((cd[b]["sizes"].get("pages") or {}).get(page) or {}).get("gzip")
        rows.append((f"Code per page, {page} (gzip)", "≤ 300,000 B (350,000 B if named)", [None] * 4, size("old"), size("new"), "B"))

    L = ["| measure | target | OLD round 1 | OLD round 2 | NEW round 1 | NEW round 2 | **OLD** | **NEW** | NEW − OLD |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for measure, target, rounds, old, new, unit in rows:
        if old is None and new is None:
            continue
        change = "—"
        if old is not None and new is not None:
            diff = new - old
            pct = f" ({100 * diff / old:+.0f} %)" if old else ""
            change = (f"{diff:+,.0f} B" if unit == "B" else f"{diff:+g}" if unit == "" else f"{diff:+.0f} ms" if unit == "ms0"
                      else f"{diff:+.2f} ms") + pct
        L.append(f"| {measure} | {target} | " + " | ".join(fmt(v, unit) for v in rounds) +
                 f" | **{fmt(old, unit)}** | **{fmt(new, unit)}** | {change} |")
    return L


def splice(md, heading, new_lines, before=None):
    """Replaces the section that starts with the line `heading` (up to the next heading of the same
    or a higher level) by `new_lines`; if there is none, inserts them before the line `before`."""
    lines = md.split("\n")
    level = len(heading) - len(heading.lstrip("#"))
    start = next((i for i, l in enumerate(lines) if l.startswith(heading)), None)
    if start is None:
        at = next(i for i, l in enumerate(lines) if l.startswith(before))
        return "\n".join(lines[:at] + new_lines + lines[at:])
    end = start + 1
    while end < len(lines):
        l = lines[end]
        if l.startswith("#") and len(l) - len(l.lstrip("#")) <= level and l[len(l) - len(l.lstrip("#")):].startswith(" "):
            break
        end += 1
    return "\n".join(lines[:start] + new_lines + lines[end:])


def compare_report(d, md_path):
    cd = compare_data(d)
    m = cd["machine"]
    new_scen, new_nav = cd["new"]["browser"]
    md = open(md_path).read()
    # Section 1's run, from the header as it was: a full run's "Run <date> on commit <sha>." line, or
    # what an earlier --compare wrote about it.
    head = md.split("\n## Machine")[0]
    if "Section 1 (kernel) is from the full run (" in head:
        prev_run = head.split("Section 1 (kernel) is from the full run (")[1].split(")")[0]
    else:
        prev_run = next((l for l in head.split("\n") if l.startswith("Run ")), "")[4:].split(".")[0]

    header = ["# Benchmarks", "",
              "Measured by `scripts/bench.sh`, which builds what it needs, prints the tables and rewrites this file. "
              "The targets, sections 2 and 3, the before/after table and the CPU profile below come from",
              "", "```sh", m.get("command", "scripts/bench.sh --compare OLD NEW"), "```", "",
              f"run {m.get('date', '?')} on commit {m.get('git', '?')}, with no build: NEW = `{m.get('new', '?')}` (the current "
              f"work), OLD = `{m.get('old', '?')}` (the build before this round of work), both every page as "
              "`scripts/build.sh` makes them. Section 1 (kernel) is from the full run"
              + (f" ({prev_run})" if prev_run else "") + "; section 4 (training) from `scripts/bench.sh --training-only` "
              "(its own note). Re-run the commands to refresh them. Not part of `scripts/test.sh` (pass/fail tests must not "
              "depend on machine speed); `e2e/scale.test.mjs` guards the *correctness* of the 256-token × 8-head view.",
              "", "## Machine", ""] + machine_table(m) + [""] + load_note(m)
    lines = md.split("\n")
    first_section = next(i for i, l in enumerate(lines) if l.startswith("## Targets"))
    md = "\n".join(header + lines[first_section:])

    sizes, lh = cd["new"]["sizes"], cd["new"]["lh"]
    md = splice(md, "## Targets", ["## Targets", "",
                                   "NEW's figures (both rounds of the comparison pooled; Lighthouse: median of its runs). "
                                   "These are benchmark targets, not timed tests.", ""] +
                targets_table(target_rows(new_scen, new_nav, sizes, lh)) + [""])
    before_after = ["## Before/after: OLD vs NEW", "",
                    "`scripts/bench.sh --compare OLD NEW`: the two builds took turns, OLD, NEW, OLD, NEW, each round the "
                    "slider scenarios and navigations of section 2 and Lighthouse's runs of section 3 (per round: p95 or "
                    "median of that round; **OLD**/**NEW**: both rounds pooled). The rounds show how much this shared "
                    "machine moves a figure between runs; a change smaller than that spread is noise.", ""] + \
                   compare_table(cd) + [""]
    md = splice(md, "## Before/after", before_after, before="## 1. ")
    where = "NEW (see the header), both rounds of the comparison pooled."
    md = splice(md, "## 2. ", browser_section(new_scen, new_nav, cd["new"]["chromium"], where))
    sec3 = ["## 3. Bundle: code per page and Lighthouse", ""] + pages_and_lighthouse(sizes, lh, cd["new"]["lh_version"])
    md = splice(md, "## 3. ", sec3)
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md")
    if os.path.exists(notes):
        md = splice(md, "### Notes", open(notes).read().rstrip().split("\n") + [""])
    if cd["profile"]:
        md = splice(md, "### Where the update time goes (CPU profile)", cpu_profile_section(
            cd["profile"], profile_text("50 slider steps on NEW's default view (the same drag as section 2)", named=False)))
    with open(md_path, "w") as f:
        f.write(md.rstrip("\n") + "\n")


def profile_text(what, named):
    return (
    f"`benches/browser.mjs --profile`: {what}, with a "
    "V8 sampling profile (CDP `Profiler`, 100 µs interval) and a trace (CDP `Tracing`, categories "
    "`toplevel,devtools.timeline,v8.execute,cc,blink`) recorded together. *Trace*: the renderer main thread's self "
    "time per trace event, summed over the tasks that handled an input or drew a frame (the bench's own "
    "`page.evaluate` calls run in tasks of their own, reported apart), grouped by kind of work: script (event "
    "dispatch, the app's wasm and JS, microtasks, rAF callbacks), style, layout, paint (pre-paint, paint, layerize, "
    "and the frame's compositing: cc's layer update and commit, canvas contents handed to the compositor), input "
    "routing (hit testing, mouse event handling before dispatch); an event the list does not name counts as its "
    "nearest named ancestor; style or layout run synchronously inside script is *forced by script*. *Profile*: every "
    "sample by its leaf; then only samples with app code (wasm or its JS glue) on the stack, by leaf function "
    "(browser functions the app calls, such as a canvas setter or `setAttribute`, appear as leaves) and inclusive "
    "time of wasm functions. Both tools slow the page down (the profiler roughly doubles wasm time, tracing adds to "
    "every event): read shares, not milliseconds. " +
    ("This run uses a copy of the z build whose wasm keeps its function names (`scripts/bench.sh` makes it)." if named else
     "The shipped wasm has no name section (wasm-opt strips it), so wasm functions appear as `wasm-function[index]`; "
     "the trace's kinds and the JS-side leaves (the wasm-bindgen imports, named `__wbg_<method>_…`) still say what "
     "the time is spent on."))
