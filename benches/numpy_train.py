#!/usr/bin/env python3
"""A NumPy reference for the trainer's step: forward + backward + Adam.

Written from the formulas (f64), not translated from the Rust, and fed the exact initial weights and
batches that `examples/train_dump.rs` wrote. For each dumped step it compares the loss, every parameter
group's gradient and the parameters after Adam's update with the Rust values, and exits 1 if any
relative error is above 1e-9. Relative error of a group: max |NumPy − Rust| / max |Rust| over the group
(entries of a gradient can be exactly 0, e.g. embeddings of tokens not in the batch, so an entry-wise
ratio is undefined). It is measured for the gradients, the updated parameters and the update itself
(parameters after − before: the stricter test, since an update is a few per cent of a parameter).

First, negative controls: a copy of the first dump with one Rust loss, one gradient entry or one updated
parameter off by 10 × the tolerance must be reported as a mismatch (else exit 1: the check could not fail).

Both ways a NumPy user might write it are checked and timed: the batch as one (B, T, d_model) array,
and one sequence at a time (T × d_model matrices, as the seed article's `self_attention` (seed 000) takes one
sentence), gradients summed.

Then (unless --check-only) it times steps per second, one thread (OPENBLAS_NUM_THREADS=1 is set before
NumPy loads unless the caller set it), over the dumped batches in turn (the median of rounds of 5 steps),
and writes DIR/numpy_train.json; a `native` timing in the dump is printed beside it.

Usage: python3 benches/numpy_train.py [--check-only] [--seconds 3] [--tol 1e-9] DIR

The model (see src/model/train/transformer.rs for the Rust side):
  X0 = E[tokens] (+ sinusoidal code or learned table rows 0..T; nothing for rotary)
  per layer: Q, K, V = X Wq, X Wk, X Wv; rotary rotates each head's pairs (2i, 2i+1) of q and k at
  position t by t·10000^(−2i/head_size); head h: A = softmax(Q_h K_hᵀ / √head_size, causal −inf mask),
  Z_h = A V_h; X ← X + concat_h(Z_h) Wo
  logits = X W_U; loss = mean over every row that has a next token of −log softmax(logits)[next token]
"""
import json
import os
import sys
import time

if "OPENBLAS_NUM_THREADS" not in os.environ:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402  (after the thread setting, which OpenBLAS reads when it loads)

CONFIGS = ("repeat", "grammar", "learned")


class Model:
    def __init__(self, cfg):
        self.cfg = cfg
        self.d, self.h = cfg["d_model"], cfg["heads"]
        self.hs = self.d // self.h
        self.scale = 1.0 / np.sqrt(self.hs)
        self.pos = cfg["positions"]
        t = np.arange(cfg["max_len"], dtype=np.float64)[:, None]
        if self.pos == "sinusoidal":
            # PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same angle).
            pair = np.arange(self.d) // 2
            angle = t / 10000.0 ** (2.0 * pair / self.d)
            self.sinusoid = np.where(np.arange(self.d) % 2 == 0, np.sin(angle), np.cos(angle))
        if self.pos == "rotary":
            # Pair i of every head turns by t · 10000^(−2i/head_size).
            theta = 10000.0 ** (-(2.0 * np.arange(self.hs // 2)) / self.hs)
            self.cos, self.sin = np.cos(t * theta), np.sin(t * theta)

    def rotate(self, m, sign):
        """Rotates the pairs of every head of m (B, T, d); sign −1 is the inverse (the transpose)."""
        b, t, _ = m.shape
        pairs = m.reshape(b, t, self.h, self.hs // 2, 2)
        c = self.cos[:t][None, :, None, :]
        s = sign * self.sin[:t][None, :, None, :]
        x, y = pairs[..., 0], pairs[..., 1]
        return np.stack((x * c - y * s, x * s + y * c), axis=-1).reshape(b, t, self.d)

    def heads(self, m):  # (B, T, d) -> (B, H, T, hs)
        b, t, _ = m.shape
        return m.reshape(b, t, self.h, self.hs).transpose(0, 2, 1, 3)

    def merge(self, m):  # (B, H, T, hs) -> (B, T, d)
        b, _, t, _ = m.shape
        return m.transpose(0, 2, 1, 3).reshape(b, t, self.d)

    def layers(self, p, tokens, tau=1.0, mistake=None, ablation=None):
        """The attention layers on the batch (B, T): the residual stream after the last layer and, per
        layer, (input, Q, K, V per head, weights, concatenated head outputs). `tau` divides every
        layer's scores as well (the training page's "Look closer"; training uses 1).

        For the training page's lab (forward only): `mistake`, a download's `mistake` key, makes that
        training mistake: "no-mask" (every row sees every key), "mask-zero" (future scores 0, not
        -inf), "no-scaling" (no 1/sqrt(head_size)), "no-positions" (no position code or rotation),
        "columns" (the softmax over the queries, axis -2, the future still -inf). `ablation` maps
        (layer, head), from 0, to the row that replaces every row of that head's output A V (zeros
        for zero-ablation, the head's mean output row for mean-ablation)."""
        cfg, d = self.cfg, self.d
        b, t = tokens.shape
        positions = mistake != "no-positions"
        x = p["token embedding"][tokens]
        if positions and self.pos == "sinusoidal":
            x = x + self.sinusoid[:t]
        elif positions and self.pos == "learned":
            x = x + p["learned positions"][:t]
        mask = np.triu(np.ones((t, t), dtype=bool), 1)
        scale = (1.0 if mistake == "no-scaling" else self.scale) / tau
        axis = -2 if mistake == "columns" else -1
        cache = []
        for layer in range(cfg["layers"]):
            w = lambda n: p[f"layer {layer + 1} {n}"]
            flat = x.reshape(b * t, d)
            q, k, v = ((flat @ w(n)).reshape(b, t, d) for n in ("W_q", "W_k", "W_v"))
            if positions and self.pos == "rotary":
                q, k = self.rotate(q, 1.0), self.rotate(k, 1.0)
            qh, kh, vh = self.heads(q), self.heads(k), self.heads(v)
            scores = (qh @ kh.transpose(0, 1, 3, 2)) * scale
            if mistake == "mask-zero":
                scores[..., mask] = 0.0
            elif mistake != "no-mask":
                scores[..., mask] = -np.inf
            e = np.exp(scores - scores.max(axis=axis, keepdims=True))
            a = e / e.sum(axis=axis, keepdims=True)
            zh = a @ vh
            for (l, h), row in (ablation or {}).items():
                if l == layer:
                    zh[:, h, :, :] = row
            z = self.merge(zh)
            cache.append((x, qh, kh, vh, a, z))
            x = x + (z.reshape(b * t, d) @ w("W_o")).reshape(b, t, d)
        return x, cache

    def loss_and_grad(self, p, tokens, count=None):
        """Mean next-token loss of the batch (B, T) and the gradient of every group; `count` overrides
        the number of predicted positions the mean divides by (for one sequence of a larger batch)."""
        cfg, d = self.cfg, self.d
        b, t = tokens.shape
        x, cache = self.layers(p, tokens)
        logits = x.reshape(b * t, d) @ p["unembedding"]
        logits = logits.reshape(b, t, -1)
        top = logits.max(axis=-1, keepdims=True)
        e = np.exp(logits - top)
        total = e.sum(axis=-1, keepdims=True)
        probs = e / total
        log_norm = (top + np.log(total))[..., 0]
        nxt = tokens[:, 1:]
        rows_b, rows_t = np.meshgrid(np.arange(b), np.arange(t - 1), indexing="ij")
        target = logits[rows_b, rows_t, nxt]
        count = count or b * (t - 1)
        loss = (log_norm[:, :-1] - target).sum() / count

        g = {}
        dlogits = probs / count
        dlogits[:, -1, :] = 0.0  # the last row predicts nothing
        dlogits[rows_b, rows_t, nxt] -= 1.0 / count
        vocab = dlogits.shape[-1]
        g["unembedding"] = x.reshape(b * t, d).T @ dlogits.reshape(b * t, vocab)
        dx = (dlogits.reshape(b * t, vocab) @ p["unembedding"].T).reshape(b, t, d)
        for layer in reversed(range(cfg["layers"])):
            w = lambda n: p[f"layer {layer + 1} {n}"]
            x_in, qh, kh, vh, a, z = cache[layer]
            g[f"layer {layer + 1} W_o"] = z.reshape(b * t, d).T @ dx.reshape(b * t, d)
            dz = self.heads((dx.reshape(b * t, d) @ w("W_o").T).reshape(b, t, d))
            da = dz @ vh.transpose(0, 1, 3, 2)
            dvh = a.transpose(0, 1, 3, 2) @ dz
            # Row-wise softmax Jacobian: dS = A ∘ (dA − Σ_j A dA) times the scale.
            ds = self.scale * a * (da - (a * da).sum(axis=-1, keepdims=True))
            dq, dk, dv = self.merge(ds @ kh), self.merge(ds.transpose(0, 1, 3, 2) @ qh), self.merge(dvh)
            if self.pos == "rotary":
                dq, dk = self.rotate(dq, -1.0), self.rotate(dk, -1.0)
            flat_in = x_in.reshape(b * t, d)
            for n, dm in (("W_q", dq), ("W_k", dk), ("W_v", dv)):
                dm = dm.reshape(b * t, d)
                g[f"layer {layer + 1} {n}"] = flat_in.T @ dm
                dx = dx + (dm @ w(n).T).reshape(b, t, d)
        de = np.zeros_like(p["token embedding"])
        np.add.at(de, tokens.reshape(-1), dx.reshape(b * t, d))
        g["token embedding"] = de
        if self.pos == "learned":
            dp = np.zeros_like(p["learned positions"])
            dp[:t] = dx.sum(axis=0)
            g["learned positions"] = dp
        return loss, g


    def loss_and_grad_per_sequence(self, p, tokens):
        """The same batch one sequence at a time (T × d_model matrices, as the seed article's
        `self_attention`, seed 000, takes one sentence), the gradients summed."""
        count = tokens.shape[0] * (tokens.shape[1] - 1)
        loss, grads = 0.0, None
        for row in tokens:
            l, g = self.loss_and_grad(p, row[None, :], count)
            loss += l
            grads = g if grads is None else {k: grads[k] + g[k] for k in grads}
        return loss, grads


class Adam:
    """m ← β₁m + (1−β₁)g, v ← β₂v + (1−β₂)g², θ ← θ − lr·m̂/(√v̂ + ε), m̂ = m/(1−β₁ⁿ), v̂ = v/(1−β₂ⁿ)."""

    def __init__(self, cfg, params):
        self.lr, self.b1, self.b2, self.eps = cfg["lr"], cfg["beta1"], cfg["beta2"], cfg["eps"]
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.n = 0

    def step(self, params, grads):
        self.n += 1
        c1, c2 = 1.0 - self.b1**self.n, 1.0 - self.b2**self.n
        for k, g in grads.items():
            self.m[k] = self.b1 * self.m[k] + (1.0 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1.0 - self.b2) * g * g
            params[k] = params[k] - self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)


def matrices(dump, values):
    return {g["name"]: np.array(values[g["name"]], dtype=np.float64).reshape(g["rows"], g["cols"]) for g in dump["groups"]}


def rel(ours, theirs):
    scale = np.abs(theirs).max()
    return float(np.abs(ours - theirs).max() / scale) if scale > 0 else float(np.abs(ours).max())


def check(dump, tol, per_sequence=False):
    """Replays the dumped steps; returns (ok, {group: {grad, params, update}: max rel error}, loss error)."""
    cfg = dump["config"]
    model = Model(cfg)
    step_fn = model.loss_and_grad_per_sequence if per_sequence else model.loss_and_grad
    params = matrices(dump, dump["initial"])
    adam = Adam(cfg, params)
    worst = {g["name"]: {"grad": 0.0, "params": 0.0, "update": 0.0} for g in dump["groups"]}
    loss_err = 0.0
    before_rust = dict(params)
    for step in dump["steps"]:
        tokens = np.array(step["batch"], dtype=np.int64)
        loss, grads = step_fn(params, tokens)
        if set(grads) != set(params):
            raise SystemExit(f"groups differ: {sorted(grads)} vs {sorted(params)}")
        loss_err = max(loss_err, abs(loss - step["loss"]) / abs(step["loss"]))
        rust_grad, rust_params = matrices(dump, step["grad"]), matrices(dump, step["params"])
        before = dict(params)
        adam.step(params, grads)
        for name in params:
            wk = worst[name]
            wk["grad"] = max(wk["grad"], rel(grads[name], rust_grad[name]))
            wk["params"] = max(wk["params"], rel(params[name], rust_params[name]))
            wk["update"] = max(wk["update"], rel(params[name] - before[name], rust_params[name] - before_rust[name]))
        before_rust = rust_params
    ok = loss_err <= tol and all(v <= tol for wk in worst.values() for v in wk.values())
    return ok, worst, loss_err


def negative_controls(dump, tol):
    """Shows the comparison can fail: each Rust record (the loss, the largest entry of a gradient, of
    updated parameters) changed by 10 × the tolerance, relative, must be reported as a mismatch."""
    def spoiled(where):
        copy = json.loads(json.dumps(dump["steps"]))
        step = copy[-1]
        if where == "loss":
            step["loss"] *= 1 + 10 * tol
        else:
            group = step[where][dump["groups"][-1]["name"]]
            i = int(np.argmax(np.abs(group)))
            group[i] *= 1 + 10 * tol
        return {**dump, "steps": copy}

    return {where: not check(spoiled(where), tol)[0] for where in ("loss", "grad", "params")}


def time_steps(dump, seconds, per_sequence=False):
    cfg = dump["config"]
    model = Model(cfg)
    step_fn = model.loss_and_grad_per_sequence if per_sequence else model.loss_and_grad
    params = matrices(dump, dump["initial"])
    adam = Adam(cfg, params)
    batches = [np.array(s["batch"], dtype=np.int64) for s in dump["steps"]]

    def one(n):
        _, grads = step_fn(params, batches[n % len(batches)])
        adam.step(params, grads)

    for n in range(5):
        one(n)
    # Rounds of 5 steps; the median round (robust to bursts of other work on a shared machine).
    rounds, n, start = [], 0, time.perf_counter()
    while time.perf_counter() - start < seconds or len(rounds) < 5:
        t0 = time.perf_counter()
        for _ in range(5):
            one(n)
            n += 1
        rounds.append((time.perf_counter() - t0) / 5)
    return float(np.median(rounds)), n


def blas_info():
    try:
        from threadpoolctl import threadpool_info

        return [{k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads")} for i in threadpool_info()]
    except ImportError:
        threads = f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}"
        kernel = openblas_kernel()
        return f"{threads}, OpenBLAS kernel {kernel}" if kernel else threads


def openblas_kernel():
    """The kernel a DYNAMIC_ARCH OpenBLAS picked for this CPU (e.g. "SkylakeX"), asked of the
    library NumPy loaded (numpy.libs); None where it cannot be found."""
    import ctypes
    import glob

    libs = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*")):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename", "openblas_get_corename"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return None


def main():
    args = sys.argv[1:]
    flags = {"--seconds": 3.0, "--tol": 1e-9}
    positional, check_only = [], False
    it = iter(args)
    for a in it:
        if a == "--check-only":
            check_only = True
        elif a in flags:
            flags[a] = float(next(it))
        elif a.startswith("--"):
            raise SystemExit(f"unknown option {a}\n{__doc__}")
        else:
            positional.append(a)
    if len(positional) != 1:
        raise SystemExit(__doc__)
    d, seconds, tol = positional[0], flags["--seconds"], flags["--tol"]
    names = [n for n in CONFIGS if os.path.exists(os.path.join(d, f"{n}.json"))]
    if not names:
        raise SystemExit(f"no dumps ({', '.join(c + '.json' for c in CONFIGS)}) in {d}")
    failed = False
    results = []
    for index, name in enumerate(names):
        with open(os.path.join(d, f"{name}.json")) as f:
            dump = json.load(f)
        cfg = dump["config"]
        if index == 0:
            caught = negative_controls(dump, tol)
            print(f"negative controls on {name} (a Rust value off by {10 * tol:g} relative must be caught): "
                  + ", ".join(f"{k} {'caught' if v else 'MISSED'}" for k, v in caught.items()))
            failed |= not all(caught.values())
        ok, worst, loss_err = check(dump, tol)
        failed |= not ok
        print(f"{name}: {cfg['task']} task, {cfg['layers']} layer(s) × {cfg['heads']} heads, {cfg['positions']} positions, "
              f"d_model {cfg['d_model']}, vocab {cfg['vocab']}, batch {cfg['batch']} × {cfg['seq_len']}, "
              f"{len(dump['steps'])} steps: {'agree' if ok else 'MISMATCH'} (tolerance {tol:g})")
        print(f"  {'loss':<20} {loss_err:.1e}")
        print(f"  {'group':<20} {'gradient':>9} {'params':>9} {'update':>9}   (max relative error over the steps)")
        for group, wk in worst.items():
            flag = "" if max(wk.values()) <= tol else "   <-- above tolerance"
            print(f"  {group:<20} {wk['grad']:>9.1e} {wk['params']:>9.1e} {wk['update']:>9.1e}{flag}")
        ok_seq, worst_seq, loss_seq = check(dump, tol, per_sequence=True)
        failed |= not ok_seq
        seq_err = max(loss_seq, max(max(wk.values()) for wk in worst_seq.values()))
        print(f"  one sequence at a time: {'agree' if ok_seq else 'MISMATCH'}, max relative error {seq_err:.1e}")
        result = {"name": name, "config": cfg, "steps_checked": len(dump["steps"]), "agree": ok, "loss_rel_err": loss_err,
                  "max_rel_err": max(max(wk.values()) for wk in worst.values()), "groups": worst,
                  "per_sequence_max_rel_err": seq_err}
        if not check_only:
            per_step, n = time_steps(dump, seconds)
            flops, tokens = cfg["step_flops"], cfg["batch"] * cfg["seq_len"]
            result["numpy"] = {"seconds_per_step": per_step, "steps": n}
            line = (f"  NumPy, one thread: {per_step * 1e3:.3f} ms/step, {1 / per_step:.1f} steps/s, {tokens / per_step:,.0f} tokens/s, "
                    f"{flops / per_step / 1e9:.2f} GFLOP/s ({n} steps)")
            native = dump.get("native")
            if native:
                line += (f"; native ({native['build']}) {native['seconds_per_step'] * 1e3:.3f} ms/step, "
                         f"{1 / native['seconds_per_step']:.1f} steps/s: native {per_step / native['seconds_per_step']:.2f}× NumPy's steps/s")
                result["native"] = native
            print(line)
            per_seq, n = time_steps(dump, seconds, per_sequence=True)
            result["numpy_per_sequence"] = {"seconds_per_step": per_seq, "steps": n}
            print(f"  NumPy, one thread, one sequence at a time: {per_seq * 1e3:.3f} ms/step, {1 / per_seq:.1f} steps/s "
                  f"({n} steps)")
        results.append(result)
    if not check_only:
        out = {"numpy": np.__version__, "blas": blas_info(), "tolerance": tol, "configs": results}
        with open(os.path.join(d, "numpy_train.json"), "w") as f:
            json.dump(out, f, indent=1)
        print(f"wrote {os.path.join(d, 'numpy_train.json')}")
    if failed:
        print("MISMATCH: NumPy and Rust disagree by more than the tolerance", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
