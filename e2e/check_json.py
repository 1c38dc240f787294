#!/usr/bin/env python3
"""Recompute an Attention Explorer JSON download with NumPy and compare.

Usage: python3 e2e/check_json.py attention.json [tolerance]

For every head, with E = `embeddings`, d = `head_size`, tau = `temperature`:
    scores  = (E W_q) (E W_k)^T
    weights = causal softmax of scores / (sqrt(d) * tau)   (j > i masked, max subtracted per row)
    output  = weights (E W_v)
and asserts max |difference| <= 1e-9 (or the given tolerance) against the file's
`scores`, `weights` and `output`. Then the layer, with W_o = `w_o` (d_model x d_model):
    concat = [output_1 | output_2 | ... ]   (NumPy's own head outputs side by side, T x d_model)
    output = concat W_o                      (T x d_model)
checks the file's `concat` against it to 1e-12 (it is the heads' outputs, moved, not
recomputed) and the file's top-level `output` to 1e-9 (or the given tolerance).
Prints the largest differences; exits 1 on a mismatch.
"""

import json
import math
import sys

import numpy as np


def causal_softmax(logits):
    t = logits.shape[0]
    future = np.triu(np.ones((t, t), dtype=bool), k=1)
    masked = np.where(future, -np.inf, logits)
    masked = masked - masked.max(axis=1, keepdims=True)
    e = np.exp(masked)  # exp(-inf) = 0 for the future
    return e / e.sum(axis=1, keepdims=True)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tol = float(argv[2]) if len(argv) > 2 else 1e-9
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)

    emb = np.array(doc["embeddings"], dtype=np.float64)
    d = int(doc["head_size"])
    tau = float(doc["temperature"])
    t = len(doc["tokens"])
    problems = []
    if emb.shape != (t, int(doc["d_model"])):
        problems.append(f"embeddings shape {emb.shape} != ({t}, {doc['d_model']})")
    if len(doc["heads"]) != int(doc.get("n_heads", len(doc["heads"]))):
        problems.append(f"{len(doc['heads'])} heads but n_heads = {doc['n_heads']}")

    worst = {"scores": 0.0, "weights": 0.0, "output": 0.0}
    head_outputs = []
    for h, head in enumerate(doc["heads"]):
        w_q, w_k, w_v = (np.array(head[k], dtype=np.float64) for k in ("w_q", "w_k", "w_v"))
        scores = (emb @ w_q) @ (emb @ w_k).T
        weights = causal_softmax(scores / (math.sqrt(d) * tau))
        output = weights @ (emb @ w_v)
        head_outputs.append(output)
        for name, mine in (("scores", scores), ("weights", weights), ("output", output)):
            theirs = np.array(head[name], dtype=np.float64)
            if theirs.shape != mine.shape:
                problems.append(f"head {h + 1} {name}: shape {theirs.shape} != {mine.shape}")
                continue
            diff = float(np.max(np.abs(theirs - mine))) if mine.size else 0.0
            print(f"head {h + 1} {name:7s} max |diff| = {diff:.3e}")
            worst[name] = max(worst[name], diff)
            if not diff <= tol:  # also catches NaN
                problems.append(f"head {h + 1} {name}: max |diff| {diff:.3e} > {tol:.0e}")

    d_model = int(doc["d_model"])
    layer_worst = {}
    for name in ("w_o", "concat", "output"):
        if name not in doc:
            problems.append(f"top-level `{name}` is missing")
    if not problems:
        w_o = np.array(doc["w_o"], dtype=np.float64)
        concat = np.concatenate(head_outputs, axis=1) if head_outputs else np.zeros((t, 0))
        layer = concat @ w_o if w_o.shape == (d_model, d_model) else None
        if w_o.shape != (d_model, d_model):
            problems.append(f"w_o: shape {w_o.shape} != ({d_model}, {d_model})")
        for name, mine, limit in (
            ("concat", concat, min(tol, 1e-12)),
            ("output", layer, tol),
        ):
            if mine is None:
                continue
            theirs = np.array(doc[name], dtype=np.float64)
            if theirs.shape != (t, d_model) or theirs.shape != mine.shape:
                problems.append(f"layer {name}: shape {theirs.shape} != ({t}, {d_model})")
                continue
            diff = float(np.max(np.abs(theirs - mine))) if mine.size else 0.0
            print(f"layer {name:6s} max |diff| = {diff:.3e}")
            layer_worst[name] = diff
            if not diff <= limit:  # also catches NaN
                problems.append(f"layer {name}: max |diff| {diff:.3e} > {limit:.0e}")

    print(
        f"tau = {tau!r}, d = {d}, T = {t}, heads = {len(doc['heads'])}; max |diff|: "
        + ", ".join(f"{k} {v:.3e}" for k, v in worst.items())
        + "".join(f", layer {k} {v:.3e}" for k, v in layer_worst.items())
    )
    if problems:
        for p in problems:
            print("MISMATCH:", p, file=sys.stderr)
        return 1
    print("OK: NumPy reproduces the download")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
