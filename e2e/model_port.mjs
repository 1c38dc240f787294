// The app's maths redone in JavaScript for the e2e tests that recompute the page's numbers
// (break_it, quiz): a softmax, the documented seeded random stream (docs/guide.md, The maths), and
// a head's attention weights from a JSON download, with any of Break it's mistakes.

/** Sum of a list. */
export const sum = (xs) => xs.reduce((s, x) => s + x, 0);

/** Softmax of a whole vector; −∞ entries get 0. */
export function softmax(xs) {
  const m = Math.max(...xs);
  const e = xs.map((x) => (x === -Infinity ? 0 : Math.exp(x - m)));
  const s = sum(e);
  return e.map((v) => v / s);
}

/** The documented seeded stream: state = seed XOR FNV-1a-64(label), SplitMix64, uniform in (0, 1). */
export function stream(seed, label) {
  const MASK = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(label)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & MASK;
  let state = BigInt(seed) ^ h;
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    z ^= z >> 31n;
    return (Number(z >> 11n) + 0.5) / 2 ** 53;
  };
}

/** Break it's dropout probability. */
export const DROPOUT_P = 0.1;

export const matmul = (a, b) => a.map((row) => b[0].map((_, c) => row.reduce((s, x, k) => s + x * b[k][c], 0)));
export const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));
/** The largest difference between two matrices' entries. */
export const maxDiff = (a, b) => Math.max(...a.flatMap((row, i) => row.map((x, j) => Math.abs(x - b[i][j]))));

/** Head h's weights at temperature tau with the mistakes in `on` (a Set of Break it's keys), from
 * the JSON download's embeddings, W_q and W_k. */
export function headWeights(json, h, tau, on = new Set()) {
  const { embeddings: X, head_size: d, d_model: dModel, seed } = json;
  const Q = matmul(X, json.heads[h].w_q);
  const K = matmul(X, json.heads[h].w_k);
  const S = Q.map((q) => K.map((k) => sum(q.map((x, c) => x * k[c]))));
  const n = on.has('d-model') ? dModel : d;
  const scale = on.has('multiply') ? Math.sqrt(n) / tau : 1 / (Math.sqrt(n) * tau);
  const hidden = (i, j) => (on.has('triu') ? j < i : j > i);
  const after = on.has('mask-after');
  const fill = on.has('mask-zero') ? 0 : -Infinity;
  const L = S.map((row, i) => row.map((s, j) => (!after && hidden(i, j) ? fill : s * scale)));
  let W = on.has('columns') ? transpose(transpose(L).map(softmax)) : L.map(softmax);
  if (after) W = W.map((row, i) => row.map((w, j) => (hidden(i, j) ? 0 : w)));
  if (on.has('dropout')) {
    const draw = stream(seed, `dropout:${h + 1}`);
    W = W.map((row) => row.map((w) => (draw() < DROPOUT_P ? 0 : w / (1 - DROPOUT_P))));
  }
  return W;
}
