#!/usr/bin/env python3
"""Recompute a generation download (model::generation_export, `kind: "generation"`) with NumPy.

Usage: python3 e2e/check_generate_json.py generation.json [tolerance]
       (a file to check: cargo run --example generation_json -- "the" 0.7 3 5 8 > generation.json)

From the file's trained matrices alone (`groups`), with the NumPy model of benches/numpy_train.py (the
same formulas, written from the definitions), for every step i:
  - `logits`: the last row of the forward pass over the prompt and the i tokens generated before it, every
    layer's scores divided by sqrt(head_size) * tau (the file's `sampling.tau`);
  - `loss`: -ln p(token) under the softmax of those logits (T = 1, every token kept);
  - `probs`: the sampler's distribution (src/model/sampling.rs), from those logits. Greedy (T <= 0 or
    top_k <= 1): 1 on the argmax (the lowest id among equals). Otherwise top-k keeps the k largest logits
    (ties: the lower id), and p_i = exp((l_i - l_max) / T) / sum, summed largest first, 0 elsewhere;
  - `draw`: null exactly when the sampler is greedy, else draw(seed, i) of src/model/rng.rs (SplitMix64
    from seed ^ FNV-1a("sample:<i>"), ((next >> 11) + 0.5) / 2^53), bit for bit;
  - `token`: re-picked from the recorded draw u by the inverse CDF of sampling.rs: in id order, skipping
    zero probabilities, the first id whose running total exceeds u; the last id with a non-zero probability
    if rounding leaves the total at or below u (u near 1). Greedy: the argmax. Re-picked from the
    recomputed distribution and from the file's `probs`; both must give the file's token;
  - the words (`prompt.words`, each step's `word`) must be the vocabulary's words of the ids.
Logits, losses and probabilities must be within the tolerance (default 1e-12, absolute). First negative
controls: a copy with one logit off by 10 x the tolerance, and one with a draw moved so that it picks
another token, must both fail, or the check could not catch anything. Prints the largest differences and
exits 1 on a mismatch.
"""
import copy
import json
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benches"))
from numpy_train import Model  # noqa: E402

MASK = (1 << 64) - 1


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h


def draw(seed, step):
    """The uniform draw of generated step `step` under `seed` (src/model/rng.rs, SeededRng::next_open01)."""
    state = (seed ^ fnv1a64(f"sample:{step}".encode())) & MASK
    z = state = (state + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    return ((z >> 11) + 0.5) / float(1 << 53)


def total_order(x):
    """A key that sorts floats as Rust's f64::total_cmp does (-0.0 before 0.0)."""
    (bits,) = struct.unpack("<q", struct.pack("<d", x))
    return bits ^ ((1 << 63) - 1) if bits < 0 else bits


def is_greedy(s):
    return s["temperature"] <= 0.0 or s["top_k"] <= 1


def argmax(values):
    """The index of the largest value, the lowest among equals (sampling.rs::argmax)."""
    best = 0
    for i, v in enumerate(values):
        if v > values[best] or math.isnan(values[best]):
            best = i
    return best


def distribution(logits, s):
    """The sampler's distribution (sampling.rs::Sampler::distribution), in its order of operations."""
    n = len(logits)
    probs = [0.0] * n
    if is_greedy(s):
        probs[argmax(logits)] = 1.0
        return probs
    kept = sorted(range(n), key=lambda i: (-total_order(logits[i]), i))[: max(1, min(s["top_k"], n))]
    top = logits[kept[0]]
    total = 0.0
    for i in kept:
        probs[i] = math.exp((logits[i] - top) / s["temperature"])
        total += probs[i]
    for i in kept:
        probs[i] /= total
    return probs


def inverse_cdf(probs, u):
    """The first id whose running total of probs exceeds u, zeros skipped; the last non-zero id if none."""
    total, last = 0.0, 0
    for i, p in enumerate(probs):
        if p > 0.0:
            total += p
            last = i
            if total > u:
                return i
    return last


def pick(probs, u, s, logits):
    return argmax(logits) if is_greedy(s) else inverse_cdf(probs, u)


def compare(doc, tol, quiet=False):
    """Returns (ok, {what: largest difference}, [mismatches that are not differences])."""
    assert doc["kind"] == "generation", doc.get("kind")
    m, s = doc["model"], doc["sampling"]
    model = Model(dict(m))
    params = {g["name"]: np.array(g["values"], dtype=np.float64).reshape(g["rows"], g["cols"]) for g in doc["groups"]}
    words, prompt = doc["vocabulary"], doc["prompt"]["ids"]
    worst, wrong = {"logits": 0.0, "loss": 0.0, "probs": 0.0}, []

    def word(i):
        return words[i] if i < len(words) else None

    if doc["prompt"]["words"] != [word(i) for i in prompt]:
        wrong.append(f"prompt words {doc['prompt']['words']} are not the words of {prompt}")
    tokens = list(prompt)
    for i, step in enumerate(doc["steps"]):
        x, _ = model.layers(params, np.asarray(tokens)[None, :], float(s["tau"]))
        logits = x[0, -1] @ params["unembedding"]
        page = np.array(step["logits"], dtype=np.float64)
        assert page.shape == logits.shape, (page.shape, logits.shape)
        worst["logits"] = max(worst["logits"], float(np.abs(page - logits).max()))
        top = logits.max()
        loss = top + np.log(np.exp(logits - top).sum()) - logits[step["token"]]
        worst["loss"] = max(worst["loss"], abs(float(loss) - step["loss"]))
        ours = distribution([float(v) for v in logits], s)
        worst["probs"] = max(worst["probs"], max(abs(a - b) for a, b in zip(ours, step["probs"])))
        u = step["draw"]
        if is_greedy(s):
            if u is not None:
                wrong.append(f"step {i}: a greedy sampler's draw is {u}, not null")
        elif u is None or u != draw(s["seed"], i):
            wrong.append(f"step {i}: draw {u} is not draw(seed {s['seed']}, {i}) = {draw(s['seed'], i)!r}")
        for what, probs in (("NumPy's distribution", ours), ("the file's probs", step["probs"])):
            again = pick(probs, u, s, [float(v) for v in logits])
            if again != step["token"]:
                wrong.append(f"step {i}: the draw {u} picks token {again} from {what}, the file says {step['token']}")
        if step["word"] != word(step["token"]):
            wrong.append(f"step {i}: word {step['word']!r} is not the word of token {step['token']}")
        tokens.append(step["token"])
    ok = not wrong and all(v <= tol for v in worst.values())
    if not quiet:
        for what, diff in worst.items():
            print(f"{what}: largest |page - NumPy| = {diff:.3e}")
        for w in wrong:
            print(w)
    return ok, worst, wrong


def moved_draw(doc):
    """A copy whose first sampled step's draw picks another token from that step's probs, or None when no
    step can pick another (greedy, or every distribution on one token)."""
    if is_greedy(doc["sampling"]):
        return None
    for step in doc["steps"]:
        probs = step["probs"]
        others = [i for i, p in enumerate(probs) if p > 0.0 and i != step["token"]]
        if others:
            # The middle of another token's share of the running total.
            start = sum(p for p in probs[: others[0]] if p > 0.0)
            bad = copy.deepcopy(doc)
            bad["steps"][doc["steps"].index(step)]["draw"] = start + probs[others[0]] / 2
            return bad
    return None


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    tol = float(argv[2]) if len(argv) > 2 else 1e-12
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    if not doc["steps"]:
        print("no steps: nothing to recompute")
        return 1
    # Negative controls: one logit off by 10 x the tolerance; a draw moved onto another token.
    bad = copy.deepcopy(doc)
    bad["steps"][-1]["logits"][0] += 10 * tol
    controls = [(bad, "logits", None)]
    moved = moved_draw(doc)
    if moved is not None:
        # It must fail by the re-pick itself, not only because the draw is no longer the seed's.
        controls.append((moved, "moved draw", "picks token"))
    elif is_greedy(doc["sampling"]):
        drawn = copy.deepcopy(doc)
        drawn["steps"][0]["draw"] = 0.5
        controls.append((drawn, "a draw on a greedy step", "not null"))
    else:
        print("note: every step's distribution is on one token, so no draw can pick another")
    for broken, what, reason in controls:
        ok, _, wrong = compare(broken, tol, quiet=True)
        if ok or (reason is not None and not any(reason in w for w in wrong)):
            print(f"negative control passed ({what}): the check cannot catch it")
            return 1
    ok, _, _ = compare(doc, tol)
    s = doc["sampling"]
    print(("OK" if ok else "MISMATCH") + f" ({len(doc['steps'])} steps after {len(doc['prompt']['ids'])} prompt tokens, "
          f"T {s['temperature']}, top-k {s['top_k']}, seed {s['seed']}, tau {s['tau']}, "
          f"{len(controls)} negative controls caught, tolerance {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
