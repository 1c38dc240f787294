#!/usr/bin/env python3
"""Recompute a training-page download (train.html, "Download this model (JSON)") with NumPy.

Usage: python3 e2e/check_train_json.py trained-model.json [tolerance]
       python3 e2e/check_train_json.py trained-model.json --explorer attention.json
       python3 e2e/check_train_json.py trained-model.json --row LAYER HEAD ROW TAU
       python3 e2e/check_train_json.py trained-model.json --trace LAYER HEAD ROW TAU

The third form prints, as JSON, row ROW (from 1) of head HEAD of layer LAYER on held-out sequence 1 with every
layer's scores divided by sqrt(head_size) * TAU (the training page's "Look closer" at temperature TAU).
The fourth prints that row's trace as JSON: "raw", the scores q.k against every key (the future's too; rotated
q and k for rotary positions), "weights" (the row, every key) and "blend" (the weighted sum of the values).

The second form checks the hand-over to the explorer ("Show this model in the explorer"): the explorer's
download (`attention.json`, temperature 1) must show, for its sentence, each head's weights as this model's
layer 1 computes them, to 1e-5 (the explorer reads the weights rounded to f32).

From the file's trained matrices alone (`groups`) it runs the model forward on every held-out sequence
with the NumPy model of benches/numpy_train.py (the same formulas, written from the definitions), then
compares with what the page showed:
  - `attention[layer][head]`: every head's weights on held-out sequence 1 (the page's head grid);
  - `eval.heads`: the detector scores, from their definitions over rows i = 1 .. T-1 of every sequence:
    previous token A[i, i-1], first token A[i, 0], self A[i, i], entropy -sum_j A log2 A (bits), and
    induction A[i, i-len+1] over the rows of the repeat;
  - `eval.loss`, `eval.first_copy_loss`, `eval.repeated_loss`: mean next-token loss over every predicted
    position, over the predictable tokens of the first copy and of the repeat.
The training page's lab adds, when present:
  - `mistake`: the run's training mistake. `attention` and `eval` are then recomputed with that mistake
    (numpy_train.Model.layers), and `eval.as_used` with correct causal attention;
  - `ablation`: heads knocked out. Each mean-ablated head's `mean` must be that head's mean output row
    over every position of every held-out sequence of the intact model; then, with each knocked-out
    head's output replaced by its recorded row (zeros for "zero", `mean` for "mean"), `ablation.eval`
    (losses, scores, and `as_used` after a mistake) and `ablation.attention` are recomputed from the
    file alone.
Every difference must be within the tolerance (default 1e-9, absolute; the numbers are at most a few
units, a few tens for a mistake's "as used" losses). First negative controls: the same check on a copy with
one attention weight and one score off by 10 x the tolerance must fail (and, when present, one "as used"
loss, one knocked-out loss and one knocked-out score), or the check could not catch anything. Prints the
largest differences and exits 1 on a mismatch.
"""
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benches"))
from numpy_train import Model  # noqa: E402


def load(doc):
    """The NumPy model and its parameters, by group name, from a download."""
    model = Model(dict(doc["model"]))
    params = {g["name"]: np.array(g["values"], dtype=np.float64).reshape(g["rows"], g["cols"]) for g in doc["groups"]}
    return model, params


def forward(model, params, tokens, tau=1.0, mistake=None, ablation=None):
    """Attention of every layer and head, the loss of every predicted position and every layer's
    concatenated head outputs (T x d_model), for one sequence, with every layer's scores divided by
    sqrt(head_size) * tau, making `mistake` and knocking out `ablation`'s heads (numpy_train.Model.layers)."""
    tokens = np.asarray(tokens)[None, :]
    t = tokens.shape[1]
    x, cache = model.layers(params, tokens, tau, mistake, ablation)
    attention = [layer[4][0] for layer in cache]
    logits = (x @ params["unembedding"])[0]
    top = logits.max(axis=-1)
    log_norm = top + np.log(np.exp(logits - top[:, None]).sum(axis=-1))
    nxt = tokens[0, 1:]
    losses = log_norm[:-1] - logits[np.arange(t - 1), nxt]
    return attention, losses, [layer[5][0] for layer in cache]


def scores_of(patterns, held_out):
    """Detector scores of one head from its weights on each held-out sequence."""
    rows = prev = first = own = ent = 0.0
    ind_rows, ind = 0, 0.0
    for a, seq in zip(patterns, held_out):
        t = a.shape[0]
        for i in range(1, t):
            rows += 1
            prev += a[i, i - 1]
            first += a[i, 0]
            own += a[i, i]
            row = a[i, : i + 1]
            row = row[row > 0]
            ent += max(0.0, float(-(row * np.log2(row)).sum()))
        r = seq["repeat"]
        if r:
            second = r["first"] + r["len"]
            for i in range(second, min(second + r["len"], t)):
                ind_rows += 1
                ind += a[i, i + 1 - r["len"]]
    return {
        "previous_token": prev / rows,
        "induction": ind / ind_rows if ind_rows else None,
        "first_token": first / rows,
        "self": own / rows,
        "entropy_bits": ent / rows,
    }


def compare_eval(page, runs, held, m, note, what):
    """An evaluation (`loss`, `first_copy_loss`, `repeated_loss`, `heads`) against NumPy's runs."""
    for layer in range(m["layers"]):
        for head in range(m["heads"]):
            ours = scores_of([r[0][layer][head] for r in runs], held)
            shown = page["heads"][layer][head]
            for key, value in ours.items():
                if value is None or shown[key] is None:
                    assert value is None and shown[key] is None, (key, value, shown[key])
                else:
                    note(f"{what}scores", abs(value - shown[key]))
    losses = [r[1] for r in runs]
    note(f"{what}loss", abs(np.concatenate(losses).mean() - page["loss"]))
    if page["first_copy_loss"] is not None:
        first = repeated = 0.0
        rows = 0
        for l, s in zip(losses, held):
            r = s["repeat"]
            second = r["first"] + r["len"]
            first += l[r["first"] : r["first"] + r["len"] - 1].sum()
            repeated += l[second : second + r["len"] - 1].sum()
            rows += r["len"] - 1
        note(f"{what}loss", abs(first / rows - page["first_copy_loss"]))
        note(f"{what}loss", abs(repeated / rows - page["repeated_loss"]))


def compare_grid(shown, run, m, note, what):
    """The head grid of held-out sequence 1."""
    assert len(shown) == m["layers"] and all(len(layer) == m["heads"] for layer in shown)
    for layer in range(m["layers"]):
        for head in range(m["heads"]):
            page = np.array(shown[layer][head], dtype=np.float64)
            ours = run[0][layer][head]
            assert page.shape == ours.shape, (page.shape, ours.shape)
            note(what, np.abs(page - ours).max())


def compare(doc, tol, quiet=False):
    """Returns (ok, {what: largest difference})."""
    m = doc["model"]
    model, params = load(doc)
    held = doc["held_out"]
    mistake = doc.get("mistake")
    runs = [forward(model, params, s["tokens"], mistake=mistake) for s in held]
    worst = {}

    def note(what, diff):
        worst[what] = max(worst.get(what, 0.0), float(diff))

    # The head grid (held-out sequence 1), the detector table and the losses, as the run trains.
    compare_grid(doc["attention"], runs[0], m, note, "attention")
    compare_eval(doc["eval"], runs, held, note=note, m=m, what="")
    plain = None
    if mistake is not None:
        plain = [forward(model, params, s["tokens"]) for s in held]
        compare_eval(doc["eval"]["as_used"], plain, held, m, note, "as used: ")
    ablation = doc.get("ablation")
    if ablation is not None:
        hs = m["head_size"]
        knocked = {}
        for k in ablation["heads"]:
            layer, head = k["layer"] - 1, k["head"] - 1
            if k["kind"] == "mean":
                # The intact model's mean output row of that head, over every row of every sequence.
                rows = np.concatenate([r[2][layer][:, head * hs : (head + 1) * hs] for r in runs])
                note("ablation means", np.abs(rows.mean(axis=0) - np.array(k["mean"])).max())
                knocked[(layer, head)] = np.array(k["mean"], dtype=np.float64)
            else:
                assert k["kind"] == "zero" and k["mean"] is None, k
                knocked[(layer, head)] = np.zeros(hs)
        cut = [forward(model, params, s["tokens"], mistake=mistake, ablation=knocked) for s in held]
        compare_grid(ablation["attention"], cut[0], m, note, "ablation attention")
        compare_eval(ablation["eval"], cut, held, m, note, "ablation ")
        if mistake is not None:
            cut_plain = [forward(model, params, s["tokens"], ablation=knocked) for s in held]
            compare_eval(ablation["eval"]["as_used"], cut_plain, held, m, note, "ablation as used: ")
    ok = all(v <= tol for v in worst.values())
    if not quiet:
        for what, diff in worst.items():
            print(f"{what}: largest |page - NumPy| = {diff:.3e}")
    return ok, worst


def compare_explorer(doc, explorer, tol=1e-5):
    """The explorer's heads against this model's layer 1 on the explorer's sentence."""
    model, params = load(doc)
    assert float(explorer["temperature"]) == 1.0, "the explorer's view must be at temperature 1"
    ids = [doc["words"].index(t.lower()) for t in explorer["tokens"]]
    attention, _, _ = forward(model, params, ids)
    assert len(explorer["heads"]) == doc["model"]["heads"], (len(explorer["heads"]), doc["model"]["heads"])
    worst = 0.0
    for h, head in enumerate(explorer["heads"]):
        worst = max(worst, float(np.abs(np.array(head["weights"], dtype=np.float64) - attention[0][h]).max()))
    print(f"explorer: largest |explorer - NumPy from the training page's matrices| = {worst:.3e}")
    ok = worst <= tol
    print(("OK" if ok else "MISMATCH") + f" (explorer, {len(ids)} tokens, {len(explorer['heads'])} heads, tolerance {tol:g})")
    return 0 if ok else 1


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if len(argv) == 7 and argv[2] == "--row":
        with open(argv[1], encoding="utf-8") as f:
            doc = json.load(f)
        layer, head, row, tau = int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6])
        attention, _, _ = forward(*load(doc), doc["held_out"][0]["tokens"], tau)
        print(json.dumps(attention[layer - 1][head - 1][row - 1][:row].tolist()))
        return 0
    if len(argv) == 7 and argv[2] == "--trace":
        with open(argv[1], encoding="utf-8") as f:
            doc = json.load(f)
        layer, head, row, tau = int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6])
        model, params = load(doc)
        tokens = np.asarray(doc["held_out"][0]["tokens"])[None, :]
        _, cache = model.layers(params, tokens, tau)
        _, qh, kh, vh, a, _ = cache[layer - 1]
        q, k, v, w = qh[0, head - 1], kh[0, head - 1], vh[0, head - 1], a[0, head - 1][row - 1]
        print(json.dumps({"raw": (k @ q[row - 1]).tolist(), "weights": w.tolist(), "blend": (w @ v).tolist()}))
        return 0
    if len(argv) == 4 and argv[2] == "--explorer":
        with open(argv[1], encoding="utf-8") as f, open(argv[3], encoding="utf-8") as g:
            return compare_explorer(json.load(f), json.load(g))
    tol = float(argv[2]) if len(argv) > 2 else 1e-9
    with open(argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    # Negative controls: a weight of the grid and a score, each off by 10 x the tolerance.
    bad = copy.deepcopy(doc)
    bad["attention"][0][0][1][0] += 10 * tol
    bad_score = copy.deepcopy(doc)
    bad_score["eval"]["heads"][0][0]["previous_token"] += 10 * tol
    controls = [bad, bad_score]
    if "as_used" in doc["eval"]:
        bad_used = copy.deepcopy(doc)
        bad_used["eval"]["as_used"]["loss"] += 10 * tol
        controls.append(bad_used)
    if "ablation" in doc:
        for where in ("loss", "score"):
            bad_cut = copy.deepcopy(doc)
            if where == "loss":
                bad_cut["ablation"]["eval"]["repeated_loss" if bad_cut["ablation"]["eval"]["repeated_loss"] is not None else "loss"] += 10 * tol
            else:
                bad_cut["ablation"]["eval"]["heads"][-1][-1]["previous_token"] += 10 * tol
            controls.append(bad_cut)
    for broken in controls:
        if compare(broken, tol, quiet=True)[0]:
            print("negative control passed: the check cannot catch a change of 10 x the tolerance")
            return 1
    ok, _ = compare(doc, tol)
    extra = f", mistake {doc['mistake']}" if "mistake" in doc else ""
    if "ablation" in doc:
        extra += ", knocked out: " + ", ".join(f"L{k['layer']}H{k['head']} ({k['kind']})" for k in doc["ablation"]["heads"])
    print(("OK" if ok else "MISMATCH") + f" (step {doc['step']}, {len(doc['held_out'])} held-out sequences{extra}, "
          f"{len(controls)} negative controls caught, tolerance {tol:g})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
