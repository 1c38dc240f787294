// The app's maths redone in JavaScript for the e2e tests that recompute the page's numbers
// (break_it, quiz): a softmax and the documented seeded random stream (docs/guide.md, The maths).

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
