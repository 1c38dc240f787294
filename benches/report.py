#!/usr/bin/env python3
"""Writes BENCHMARKS.md from the files scripts/bench.sh leaves in its work dir.

Usage: python3 benches/report.py BENCH_DIR            (markdown on stdout)
       python3 benches/report.py BENCH_DIR --summary  (targets only, for the terminal)
       python3 benches/report.py BENCH_DIR --training-section  (section 4 only, markdown)
       python3 benches/report.py BENCH_DIR --compare BENCHMARKS.md
           (scripts/bench.sh --compare: rewrites the header, the targets, sections 2 and 3, the
           before/after table, the notes and the CPU profile in that file from BENCH_DIR/compare;
           sections 1 and 4 and the size profile stay as they are)
       python3 benches/report.py BENCH_DIR --compare-summary  (the before/after table, terminal)

The targets, the machine table, sections 2 and 3, the before/after table and the --compare mode are in
benches/report_compare.py (imported from this script's directory); here: sections 1 and 4, the code per
page of the explorer alone, the size profile, and the command line.
"""
import json
import os
import sys

from report_compare import (
    load, machine, pool_browser, pool_lighthouse, target_rows, targets_table, browser_section,
    pages_and_lighthouse, cpu_profile_section, machine_table, load_note, compare_data, compare_table,
    compare_report, profile_text,
)


def us(ns):
    return f"{ns / 1e3:,.1f} µs" if ns < 1e6 else f"{ns / 1e6:,.2f} ms"


def kb(b):
    return f"{b / 1000:,.1f} kB"


def load_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def steps_s(seconds):
    return f"{1 / seconds:,.0f} steps/s ({seconds * 1e3:.2f} ms)"


def span(values, fmt="{:,.0f}"):
    values = sorted(v for v in values if v is not None)
    if not values:
        return "—"
    lo, hi = fmt.format(values[0]), fmt.format(values[-1])
    return lo if lo == hi else f"{lo}–{hi}"


def training_section(d, m):
    """Section 4 (training): the trainer's step natively and in NumPy, and the default runs."""
    t = os.path.join(d, "train")
    result = load(t, "numpy_train.json", {})
    if not result:
        return []
    def native_step(build_dir):
        """Each config's native step from a train_dump run in `train/<build_dir>`."""
        steps = {}
        for c in result.get("configs", []):
            p = os.path.join(t, build_dir, f"{c['name']}.json")
            if os.path.exists(p):
                with open(p) as f:
                    steps[c["name"]] = json.load(f).get("native")
        return steps

    o3, cpu = native_step("o3"), native_step("native-cpu")
    L = []
    w = L.append
    w("## 4. Training: native Rust vs NumPy")
    w("")
    w(f"Run {m.get('date', '?')} on commit {m.get('git', '?')}, {m.get('nproc', '?')} cores, {m.get('cpu', '?')} "
      f"({m.get('cpu_flags', '').strip() or 'no AVX flags'}), load average before {m.get('load_before', '?')}, "
      f"after {m.get('load_after', '?')}. One training step is the forward pass, the backward pass and Adam's update on "
      "a batch of 16 sequences of 16 tokens (`src/model/train/`). `examples/train_dump.rs` writes the seeded initial "
      "weights and the first 5 batches of each default, with the Rust loss, gradients and updated parameters; "
      "`benches/numpy_train.py` redoes the same steps in NumPy (f64, written from the formulas, batched over the 16 "
      "sequences as one array, and again one sequence at a time as the seed article's `self_attention` (seed 000) takes one "
      "sentence), checks every group against the Rust numbers (max relative error: "
      "max |NumPy − Rust| / max |Rust| per group, over gradients, updated parameters and the updates themselves), then "
      "times its step on one thread (`OPENBLAS_NUM_THREADS=1`). Both sides time the same 5 batches in turn, after a "
      "warm-up, and report the median over short rounds (10 steps natively, 5 in NumPy), which a burst of other work on a "
      "shared machine moves less than a mean. The FLOP counts cover the matrix products only (`ModelConfig::step_flops`).")
    w("")
    w("| config | parameters | MFLOP/step | native, release profile (opt-level \"z\", products at 3) | native, opt-level 3 | "
      "native, opt-level 3, `target-cpu=native` | "
      "NumPy batched, 1 thread | NumPy per sequence, 1 thread | native \"z\" speed ÷ NumPy batched | agreement (max rel. error, 5 steps) |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in result.get("configs", []):
        cfg = c["config"]
        label = (f"{c['name']} ({cfg['task']} task, {cfg['layers']} layer{'s' if cfg['layers'] > 1 else ''} × "
                 f"{cfg['heads']} heads, {cfg['positions']} positions)")
        native, fast, numpy, seq = c.get("native"), o3.get(c["name"]), c.get("numpy"), c.get("numpy_per_sequence")
        own_cpu = cpu.get(c["name"])
        ratio = (f"{numpy['seconds_per_step'] / native['seconds_per_step']:.2f}×" if native and numpy else "—")
        w(f"| {label} | {cfg['parameters']:,} | {cfg['step_flops'] / 1e6:.1f} | "
          f"{steps_s(native['seconds_per_step']) if native else '—'} | {steps_s(fast['seconds_per_step']) if fast else '—'} | "
          f"{steps_s(own_cpu['seconds_per_step']) if own_cpu else '—'} | "
          f"{steps_s(numpy['seconds_per_step']) if numpy else '—'} | {steps_s(seq['seconds_per_step']) if seq else '—'} | {ratio} | "
          f"{'agree' if c['agree'] else '**MISMATCH**'}, {max(c['max_rel_err'], c.get('per_sequence_max_rel_err', 0)):.1e} |")
    w("")
    w(f"NumPy {result.get('numpy', '?')}; BLAS: `{result.get('blas')}`. Tolerance {result.get('tolerance', 1e-9):g}; "
      "`scripts/test.sh` runs the same agreement check (step `numpy-train`, debug build) on every test run.")
    w("")
    runs = load_lines(os.path.join(t, "repeat-runs.jsonl"))
    if runs:
        w("Repeat task, reference default (2 layers of 2 rotary heads, d_model 32, vocab 32, batch 16, Adam lr 1e-2), "
          "natively with the release profile, evaluated every 25 steps as the page does (the seconds include those "
          "evaluations). Phase change = the first evaluation where the copying circuit's three conditions hold: repeated-part loss ≤ 30 % of "
          "the first copy's, a layer-2 induction score ≥ 0.5 and a layer-1 previous-token score ≥ 0.7.")
        w("")
        w("| seed | layer-1 previous-token > 0.5 | layer-2 induction > 0.5 | repeat loss ≤ 30 % | phase change (step) | seconds to it | stuck |")
        w("|---:|---:|---:|---:|---:|---:|---|")
        fmt = lambda v: "—" if v is None else f"{v:,}"
        for r in runs:
            secs = "—" if r["circuit_seconds"] is None else f"{r['circuit_seconds']:.1f} s"
            w(f"| {r['seed']} | {fmt(r['previous_step'])} | {fmt(r['induction_step'])} | {fmt(r['ratio_step'])} | "
              f"{fmt(r['circuit_step'])} | {secs} | {'yes' if r['stuck'] else 'no'} |")
        w("")
    gram = load_lines(os.path.join(t, "grammar-runs.jsonl"))
    if gram:
        w(f"Tiny grammar, default (1 layer of 2 sinusoidal heads), natively with the release profile: held-out loss within "
          f"10 % of the exact floor of the held-out loss ({gram[0]['minimum']:.4f} nats, `Grammar::held_out_floor_loss`), first seen at "
          f"step {span([g['within_step'] for g in gram])} (evaluated every 25 steps), after "
          f"{span([g['within_seconds'] for g in gram], '{:.2f}')} s (seeds {', '.join(str(g['seed']) for g in gram)}).")
        w("")
    browser = [b for b in (load(t, f"browser-{i}.json") for i in (1, 2, 3)) if b]
    if browser:
        w("The trainer in Chromium: the training page (`train.html`, Cargo profile `train-release`: opt-level \"s\", and 3 "
          "for the products of `kernels/`, whose tiles use 128-bit SIMD in WebAssembly), "
          "repeat task default, seed 1, from Train to Pause (`benches/train_page.mjs`), trained in a Web Worker (the page's "
          "default; engine `worker`) or, with `workers=0`, on the main thread (engine `page`). Slices: the main thread's "
          "`MessageChannel` tasks (`src/web/next_task.rs`): each ≤ 8 ms piece of training on the main thread, none with a "
          "worker. Frames: a `requestAnimationFrame` loop "
          "counting the frames the page drew meanwhile. Long tasks: the Long Tasks API (≥ 50 ms), on the main thread.")
        w("")
        fallback = [b for b in (load(t, f"browser-main-thread-{i}.json") for i in (1, 2, 3)) if b]
        w("| run | engine | steps | steps/s | slice ms p50 / p99 / max | frames/s | longest gap between frames | long tasks (longest) | repeat loss ≤ 30 % at step |")
        w("|---:|---|---:|---:|---|---:|---:|---|---:|")
        for i, b in enumerate(browser + fallback, 1):
            sl = b["slice_ms"]
            w(f"| {i} | {b.get('engine', 'page')} | {b['steps']:,} | {b['steps_per_second']:.1f} | {sl['p50']:.1f} / {sl['p99']:.1f} / {sl['max']:.1f} | "
              f"{b['frames_per_second']:.1f} | {b['longest_frame_gap_ms']:.1f} ms | {b['long_tasks']} ({b['longest_task_ms']:.0f} ms) | "
              f"{'—' if b['formed_step'] is None else format(b['formed_step'], ',')} |")
        w("")
        numpy_rate = next((1 / c["numpy"]["seconds_per_step"] for c in result.get("configs", [])
                           if c["name"] == "repeat" and c.get("numpy")), None)
        best = max(b["steps_per_second"] for b in browser)
        if numpy_rate:
            verdict = "met" if best >= numpy_rate else "**not met**"
            w(f"The training speed target, one run on the page at least as fast as NumPy batched on one thread ({numpy_rate:.0f} steps/s above): "
              f"{verdict} (best run {best:.0f} steps/s, {best / numpy_rate:.2f}×).")
            two = [b for b in (load(t, f"browser-two-{i}.json") for i in (1, 2)) if b]
            if two:
                rows = [f"{' + '.join(f'{r:.0f}' for r in b['parallel_steps_per_second'])} = "
                        f"{sum(b['parallel_steps_per_second']):.0f} steps/s" for b in two]
                each = [r for b in two for r in b["parallel_steps_per_second"]]
                w(f"Two runs at once (two pages, each run in its own worker, sharing the machine's 2 cores): {'; '.join(rows)}; "
                  f"each run {min(each) / numpy_rate:.2f}–{max(each) / numpy_rate:.2f}× NumPy batched.")
            repeat_cpu = cpu.get("repeat")
            if repeat_cpu:
                w(f"The same Rust step compiled natively for this CPU (opt-level 3, `target-cpu=native`, the column above) "
                  f"runs {1 / repeat_cpu['seconds_per_step']:.0f} steps/s, "
                  f"{1 / repeat_cpu['seconds_per_step'] / numpy_rate:.2f}× NumPy batched: WebAssembly's SIMD is 128 bits wide "
                  "(2 f64 lanes) and has no fused multiply-add, so this native build bounds what the page can reach.")
            page_o3 = [b for b in (load(t, f"browser-o3-{i}.json") for i in (1, 2, 3)) if b]
            if page_o3:
                sizes = [load(t, n) for n in ("train-o3-wasm-gzip.txt", "train-wasm-gzip.txt")]
                size_note = (f"; its wasm is {int(sizes[0]):,} B gzip against the shipped {int(sizes[1]):,} B, over the "
                             "300,000 B budget for the page's code" if all(sizes) else "")
                w(f"The training page with all of its code at opt-level 3 (built only for this comparison{size_note}): "
                  f"{span([b['steps_per_second'] for b in page_o3])} steps/s in three runs "
                  f"(best {max(b['steps_per_second'] for b in page_o3) / numpy_rate:.2f}× NumPy batched).")
            per_seq = next((1 / c["numpy_per_sequence"]["seconds_per_step"] for c in result.get("configs", [])
                            if c["name"] == "repeat" and c.get("numpy_per_sequence")), None)
            if per_seq:
                worst = min(b["steps_per_second"] for b in browser)
                w(f"Against NumPy one sequence at a time ({per_seq:.0f} steps/s), the way the seed article (seed 000) writes attention: "
                  f"the page's slowest run is {worst / per_seq:.2f}× as fast.")
            w("")
    else:
        w("Not measured in this run: the trainer in Chromium (`benches/train_page.mjs`).")
        w("")
    page_grammar = [b for b in (load(t, f"browser-grammar-{s}.json") for s in (1, 2, 3)) if b]
    if page_grammar:
        w("The tiny grammar in Chromium, its default shape (1 layer of 2 sinusoidal heads, as the task menu sets it), "
          "seeds 1–3, 300 steps each: the first evaluation whose held-out loss is within 10 % of its floor "
          "the page prints, and the seconds from Train to that step (the target: at most 5 s).")
        w("")
        w("| seed | steps/s | held-out floor | within 10 % at step | seconds after Train | long tasks (longest) |")
        w("|---:|---:|---:|---:|---:|---|")
        for b in page_grammar:
            seed = b["query"].rsplit("tseed=", 1)[-1]
            step = b.get("within_10_percent_step")
            secs = b.get("within_10_percent_seconds")
            w(f"| {seed} | {b['steps_per_second']:.1f} | {b['held_out_floor']:.4f} nats | "
              f"{'—' if step is None else format(step, ',')} | {'—' if secs is None else f'{secs:.2f} s'} | "
              f"{b['long_tasks']} ({b['longest_task_ms']:.0f} ms) |")
        w("")
    return L


# ---- the full report -------------------------------------------------------------------------------

def kernel_section(rust, np_default, np_one):
    by_t = lambda res: {r["T"]: r for r in res.get("results", [])}
    npd, np1 = by_t(np_default), by_t(np_one)
    L = []
    w = L.append
    w("## 1. Kernel: native Rust vs NumPy")
    w("")
    w("`attention_explorer::model::attention::causal_attention` (Q, K, V projections, QKᵀ, scale 1/(√d·τ), causal mask, "
      "row softmax, A·V) on seeded inputs, d_model = 64, one head of size 64, τ = 1, one thread, built at opt-level 3 "
      "(`benches/kernel.rs`, a small `Instant` harness: warm-up, then batches of calls, median per call). "
      "NumPy runs the seed text's `self_attention` (`benches/numpy_attention.py`, the same code without the output "
      "projection Wo, which the Rust kernel does not have) on the *same* inputs, read from the files the Rust bench "
      "writes, and first checks it gets the same weights and outputs (max |difference| column).")
    w("")
    w("| T | Rust median | NumPy median (OpenBLAS default threads) | ratio NumPy/Rust | NumPy median (1 thread) | ratio NumPy/Rust | max abs diff |")
    w("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rust:
        t = r["T"]
        a, b = npd.get(t), np1.get(t)
        if not a:
            w(f"| {t} | {us(r['median_ns'])} | — | — | — | — | — |")
            continue
        w(f"| {t} | {us(r['median_ns'])} | {us(a['median_ns'])} | {a['median_ns'] / r['median_ns']:.2f}× | "
          f"{us(b['median_ns']) if b else '—'} | {(b['median_ns'] / r['median_ns']) if b else float('nan'):.2f}× | "
          f"{a['max_abs_diff']:.1e} |")
    w("")
    if rust and "softmax_ns" in rust[0]:
        w("Where the Rust time goes (each stage timed alone, median per call):")
        w("")
        w("| T | X·W_q, X·W_k, X·W_v and Q·Kᵀ | scale + mask + softmax | A·V |")
        w("|---:|---:|---:|---:|")
        for r in rust:
            w(f"| {r['T']} | {us(r['projections_qk_ns'])} | {us(r['softmax_ns'])} | {us(r['av_ns'])} |")
        w("")
    w(f"NumPy {np_default.get('numpy', '?')}; BLAS as reported by threadpoolctl: default run `{np_default.get('blas')}`, "
      f"single-thread run `{np_one.get('blas')}`. "
      "`OPENBLAS_CORETYPE` and `OPENBLAS_L2_SIZE` may be set on this kind of machine (older OpenBLAS builds need them); "
      "they slow a current NumPy, so the bench unsets both, for the NumPy command only (`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE`). "
      "The single-thread column (`OPENBLAS_NUM_THREADS=1`) is the like-for-like comparison: the Rust kernel uses one core. "
      "On a loaded 2-core machine OpenBLAS's default two threads can be much *slower* than one (its threads spin-wait "
      "for a core).")
    w("")
    return L


def kernel_target(rust, np_default, np_one):
    by_t = lambda res: {r["T"]: r for r in res.get("results", [])}
    npd, np1 = by_t(np_default), by_t(np_one)
    r512 = next((r for r in rust if r["T"] == 512), None)
    if not r512 or 512 not in npd:
        return []
    ratio = npd[512]["median_ns"] / r512["median_ns"]
    ratio1 = np1[512]["median_ns"] / r512["median_ns"] if 512 in np1 else None
    return [("Native kernel T = 512 faster than NumPy (ratio NumPy/Rust)", "> 1",
             f"{ratio:.2f}× (NumPy 1 thread: {ratio1:.2f}×)" if ratio1 else f"{ratio:.2f}×",
             ratio > 1 and (ratio1 is None or ratio1 > 1), min(ratio, ratio1 or ratio), 1.0, "×")]


def generate_target(gen):
    """The generate page's goal: one generated token, with its redraw, within a frame (p95)."""
    if not gen:
        return []
    return [(f"One generated token with its redraw, p95 (generate page, {gen['prompt_tokens']}-token prompt, "
             f"{gen['tokens']} presses)", "≤ 16 ms", f"{gen['p95_ms']:.1f} ms (median {gen['median_ms']:.1f}, "
             f"largest {gen['max_ms']:.1f})", gen["p95_ms"] <= 16, gen["p95_ms"], 16.0, "ms")]


def main():
    d = sys.argv[1]
    m = machine(d)
    if "--training-section" in sys.argv:
        print("\n".join(training_section(d, m)))
        return
    if "--compare" in sys.argv:
        compare_report(d, sys.argv[sys.argv.index("--compare") + 1])
        return
    if "--compare-summary" in sys.argv:
        cd = compare_data(d)
        print("\n".join(compare_table(cd)))
        print()
        scen, nav = cd["new"]["browser"]
        for name, goal, measured, met, *_ in target_rows(scen, nav, cd["new"]["sizes"], cd["new"]["lh"]):
            print(f"  {'MET   ' if met else 'MISSED'} {name}: {measured} (target {goal})")
        return
    summary_only = "--summary" in sys.argv
    rust = load(d, "kernel/kernel_rust.json", [])
    np_default = load(d, "kernel/numpy-default.json", {})
    np_one = load(d, "kernel/numpy-1thread.json", {})
    bundle = load(d, "bundle.json", {})
    browser = load(d, "browser.json", {})
    sizes = load(d, "page-sizes.json", {})
    lh_run = load(d, "lighthouse.json")
    lh = pool_lighthouse([lh_run]) if lh_run else {}
    size_profile = load(d, "wasm-size-profile.txt", "")
    cpu_profile = load(d, "browser-profile.txt", "")
    scen, nav = pool_browser([browser] if browser else [])
    totals = {k: sum(f["gzip"] for f in v["files"]) for k, v in bundle.items()}
    raw_totals = {k: sum(f["raw"] for f in v["files"]) for k, v in bundle.items()}

    rows = target_rows(scen, nav, sizes, lh) + kernel_target(rust, np_default, np_one) \
        + generate_target(load(d, "generate.json", {}))
    if summary_only:
        print("Targets:")
        for name, goal, measured, met, *_ in rows:
            status = "INFO  " if met is None else "MET   " if met else "MISSED"
            print(f"  {status} {name}: {measured} (target {goal})")
        return

    L = ["# Benchmarks", "",
         "Measured by one command, which builds what it needs, prints the tables and rewrites this file:", "",
         "```sh", m.get("command", "scripts/bench.sh"), "```", "",
         f"Run {m.get('date', '?')} on commit {m.get('git', '?')}. Numbers are from that one run; "
         "re-run the command to refresh them. It is not part of `scripts/test.sh` (pass/fail tests must not depend on "
         "machine speed); `e2e/scale.test.mjs` guards the *correctness* of the 256-token × 8-head view instead.", "",
         "## Machine", ""] + machine_table(m) + [""] + load_note(m)
    L += ["## Targets", ""] + targets_table(rows) + [""]
    L += kernel_section(rust, np_default, np_one)
    L += browser_section(scen, nav, browser.get("chromium", "?"), "Every page as `scripts/build.sh` builds them.")
    L += ["## 3. Bundle: code per page and Lighthouse", ""]
    if bundle:
        L += ["The explorer alone, `trunk build --release` (lto, codegen-units 1, panic abort, wasm-opt `-Oz`), once with "
              "the profile's opt-level \"z\" and once with `CARGO_PROFILE_RELEASE_OPT_LEVEL=s`. gzip = `gzip -9` size.", "",
              "| opt-level | file | raw | gzip |", "|---|---|---:|---:|"]
        for k, v in bundle.items():
            for f in v["files"]:
                L.append(f"| {k} | `{f['file']}` | {f['raw']:,} B | {f['gzip']:,} B |")
            L.append(f"| {k} | **total** | **{raw_totals[k]:,} B ({kb(raw_totals[k])})** | **{totals[k]:,} B ({kb(totals[k])})** |")
        L.append("")
    L += pages_and_lighthouse(sizes, lh, (lh_run or {}).get("lighthouse"))
    L += training_section(d, m)
    L += ["## Notes and profiles: where the time and the bytes go", ""]
    notes = os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md")
    if os.path.exists(notes):
        L += [open(notes).read().rstrip(), ""]
    if size_profile:
        L += ["### Where the wasm bytes go (size profile)", "",
              "`benches/wasm_size_profile.py` on the z build's wasm re-optimised with `wasm-opt -Oz -g` (same code, name "
              "section kept). Function-body bytes per crate, then the largest functions:", "",
              "```", size_profile.rstrip(), "```", ""]
    if cpu_profile:
        L += cpu_profile_section(cpu_profile, profile_text(
            "60 slider steps and 60 row clicks on the default view and at 256 × 8 (as in section 2)", named=True))
    print("\n".join(L))


if __name__ == "__main__":
    main()
