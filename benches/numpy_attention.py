#!/usr/bin/env python3
"""NumPy side of the kernel benchmark, run by scripts/bench.sh.

The formula is the one in the course text (shared/seeds/000_*.txt, "The full self-attention, in
NumPy"), copied unchanged except that it stops at `A @ V`: the Rust kernel it is compared with
(`causal_attention`) has no output projection Wo, so neither side does that extra matmul.

For every T it reads the inputs that `benches/kernel.rs` wrote (X, Wq, Wk, Wv as row-major
little-endian f64, followed by the Rust weights and output), checks NumPy gets the same answer,
times it like the Rust harness (warm-up, batches of calls, median per call) and writes
numpy.json next to the inputs.

Usage: python3 benches/numpy_attention.py DIR [--quick] [--tag NAME]   (writes DIR/numpy-NAME.json)

scripts/bench.sh runs it twice: with OpenBLAS's default thread count and with
OPENBLAS_NUM_THREADS=1 (the Rust kernel is single-threaded), both with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (this machine may set them; they slow a current NumPy).
"""
import json
import os
import sys
import time

import numpy as np


def softmax(x, axis=-1):
    # Numerically stable softmax: subtract the max before exponentiating.
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def self_attention(X, Wq, Wk, Wv, causal=True):
    T, d_k = X.shape[0], Wq.shape[1]
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    scores = Q @ K.T / np.sqrt(d_k)
    if causal:
        mask = np.triu(np.ones((T, T), bool), 1)
        scores[mask] = -1e9
    A = softmax(scores)
    return A @ V, A


def time_it(f, warm, budget):
    start = time.perf_counter()
    calls = 0
    while time.perf_counter() - start < warm or calls < 3:
        f()
        calls += 1
    per_call = (time.perf_counter() - start) / calls
    batch = max(1, int(np.ceil(200e-6 / per_call)))
    samples = []
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget or len(samples) < 15:
        s = time.perf_counter_ns()
        for _ in range(batch):
            f()
        samples.append((time.perf_counter_ns() - s) / batch)
    samples.sort()
    pick = lambda p: samples[round((len(samples) - 1) * p)]
    return {"median_ns": pick(0.5), "p10_ns": pick(0.1), "p90_ns": pick(0.9), "calls": len(samples) * batch}


def blas_info():
    """Which BLAS (and which kernel) NumPy runs, if threadpoolctl can tell."""
    try:
        from threadpoolctl import threadpool_info

        return [
            {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for i in threadpool_info()
        ]
    except Exception as e:  # threadpoolctl is optional
        return f"threadpoolctl unavailable ({type(e).__name__})"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    quick = "--quick" in sys.argv[2:]
    tag = sys.argv[sys.argv.index("--tag") + 1] if "--tag" in sys.argv else "default"
    warm, budget = (0.1, 0.4) if quick else (0.5, 3.0)
    with open(os.path.join(out_dir, "kernel_rust.json")) as f:
        rust = json.load(f)
    results = []
    print(f"NumPy {np.__version__} self_attention (seed text formula, without Wo), run '{tag}'")
    print(f"{'T':>5} {'median/call':>14} {'p10':>14} {'p90':>14} {'calls':>10} {'max |A_np - A_rust|':>20}")
    for entry in rust:
        t, d, h = entry["T"], entry["d_model"], entry["head_size"]
        raw = np.fromfile(os.path.join(out_dir, entry["file"]), dtype="<f8")
        shapes = [(t, d), (d, h), (d, h), (d, h), (t, t), (t, h)]
        parts, k = [], 0
        for r, c in shapes:
            parts.append(raw[k : k + r * c].reshape(r, c))
            k += r * c
        assert k == raw.size, "input file size mismatch"
        X, Wq, Wk, Wv, A_rust, out_rust = parts
        out, A = self_attention(X, Wq, Wk, Wv)
        diff = max(float(np.abs(A - A_rust).max()), float(np.abs(out - out_rust).max()))
        if not diff < 1e-9:
            sys.exit(f"NumPy and Rust disagree at T={t}: max difference {diff}")
        timing = time_it(lambda: self_attention(X, Wq, Wk, Wv), warm, budget)
        timing.update({"T": t, "max_abs_diff": diff})
        results.append(timing)
        print(
            f"{t:>5} {timing['median_ns'] / 1e3:>11.1f} µs {timing['p10_ns'] / 1e3:>11.1f} µs "
            f"{timing['p90_ns'] / 1e3:>11.1f} µs {timing['calls']:>10} {diff:>20.2e}"
        )
    info = {
        "tag": tag,
        "numpy": np.__version__,
        "blas": blas_info(),
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS")},
        "results": results,
    }
    print(f"BLAS: {info['blas']}")
    with open(os.path.join(out_dir, f"numpy-{tag}.json"), "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
