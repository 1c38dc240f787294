// JS ports of the pure chart code, for tests that check pixels and for the benchmark:
// - viridis() and the theme greys from src/charts/colors.rs,
// - HeatmapLayout::new from src/charts/layout.rs,
// - the cell ↔ pixel mapping of blit_cells in src/charts/heatmap.rs.
// Keep these in step with the Rust (the scale test fails loudly if they drift).

/** Matplotlib's viridis at 0, 0.1, …, 1 (colors.rs VIRIDIS_STOPS). */
export const VIRIDIS_STOPS = [
  [0x44, 0x01, 0x54],
  [0x48, 0x24, 0x75],
  [0x41, 0x44, 0x87],
  [0x35, 0x5f, 0x8d],
  [0x2a, 0x78, 0x8e],
  [0x21, 0x91, 0x8c],
  [0x22, 0xa8, 0x84],
  [0x44, 0xbf, 0x70],
  [0x7a, 0xd1, 0x51],
  [0xbd, 0xdf, 0x26],
  [0xfd, 0xe7, 0x25],
];

/** Theme.LIGHT background and masked grey (colors.rs). */
export const LIGHT = { background: [0xff, 0xff, 0xff], masked: [0xc8, 0xc8, 0xc8] };

/** colors.rs viridis(): linear interpolation between the stops, rounded per channel. */
export function viridis(weight) {
  const w = Number.isNaN(weight) ? 0 : Math.min(Math.max(weight, 0), 1);
  const pos = w * 10;
  const i = Math.min(Math.floor(pos), 9);
  const f = pos - i;
  const [a, b] = [VIRIDIS_STOPS[i], VIRIDIS_STOPS[i + 1]];
  // Rust's f64::round rounds half away from zero; for these non-negative values Math.round agrees.
  return [0, 1, 2].map((c) => Math.round(a[c] + (b[c] - a[c]) * f));
}

const CHAR_WIDTH = 0.62;
const LEGEND_HEIGHT = 34.0;
const PAD = 6.0;

/** layout.rs HeatmapLayout::new (CSS pixels). */
export function heatmapLayout(width, n, longestLabel, fontPx, showLegend) {
  const nF = Math.max(n, 1);
  width = Number.isFinite(width) ? Math.max(width, 80) : 320;
  const labelChars = Math.min(Math.max(longestLabel, 1), 10);
  const labelW = fontPx > 0 ? labelChars * fontPx * CHAR_WIDTH + PAD : 0;
  const gridLeft = Math.min(labelW + PAD, width * 0.35);
  const available = width - gridLeft - PAD;
  const cell = Math.min(Math.max(available / nF, 0.1), 72.0);
  const verticalColumns = fontPx > 0 && labelChars * fontPx * CHAR_WIDTH > cell - 4.0;
  const colLabelH = fontPx <= 0 ? 0 : verticalColumns ? labelW + PAD : fontPx + 2 * PAD;
  const gridTop = PAD;
  const legendTop = gridTop + cell * nF + colLabelH;
  const height = legendTop + (showLegend ? LEGEND_HEIGHT : PAD);
  return {
    n,
    width,
    height,
    gridLeft,
    gridTop,
    cell,
    colX: (i) => gridLeft + cell * i,
    rowY: (i) => gridTop + cell * i,
    /** Point in cell (i, j) at fractions (fx, fy) of the cell, relative to the canvas. */
    at: (i, j, fx = 0.5, fy = 0.5) => ({ x: gridLeft + cell * (j + fx), y: gridTop + cell * (i + fy) }),
  };
}

/** Click (or tap) the middle of row `i` of a heatmap canvas showing the page's current chips. */
export async function clickHeatmapRow(page, canvas, i, { tap = false } = {}) {
  const tokens = await page.locator('.chips .chip').allTextContents();
  const longest = Math.max(...tokens.map((t) => [...t].length));
  const width = await canvas.evaluate((c) => c.clientWidth);
  const position = heatmapLayout(width, tokens.length, longest, 13.0, true).at(i, 0);
  if (tap) await canvas.tap({ position });
  else await canvas.click({ position });
}

/** heatmap.rs edges(): device-pixel edges of the cells along one axis. */
export function edges(start, cell, n, dpr) {
  const out = [];
  for (let i = 0; i <= n; i++) out.push(Math.round((start + cell * i) * dpr));
  return out;
}

/**
 * Which cell blit_cells paints at device pixel (x, y): { i, j } or null for a gap/background
 * pixel or a pixel outside the grid. Mirrors the col_of / row walk in heatmap.rs.
 */
export function cellAtPixel(layout, dpr, x, y) {
  const n = layout.n;
  const xs = edges(layout.gridLeft, layout.cell, n, dpr);
  const ys = edges(layout.gridTop, layout.cell, n, dpr);
  const gap = layout.cell * dpr >= 8 ? 1 : 0;
  const w = Math.max(xs[n] - xs[0], 1);
  const h = Math.max(ys[n] - ys[0], 1);
  if (x < xs[0] || x >= xs[0] + w || y < ys[0] || y >= ys[0] + h) return null;
  const walk = (es, p) => {
    let k = 0;
    while (k + 1 < n && p >= es[k + 1]) k++;
    return k;
  };
  const j = walk(xs, x);
  const i = walk(ys, y);
  if (x >= xs[j + 1] - gap || y >= ys[i + 1] - gap) return null;
  return { i, j };
}

/** Device-pixel centre of cell (i, j): inside the cell for any cell size ≥ 1 device pixel. */
export function cellCentrePixel(layout, dpr, i, j) {
  return {
    x: Math.floor((layout.colX(j) + layout.cell / 2) * dpr),
    y: Math.floor((layout.rowY(i) + layout.cell / 2) * dpr),
  };
}

/** The expected RGB of cell (i, j) for a weights matrix (masked future grey, light theme). */
export function expectedCellColour(weights, i, j, theme = LIGHT) {
  return j > i ? theme.masked : viridis(weights[i][j]);
}

/**
 * A sentence of `n` short words (2–3 letters, no punctuation: one token per word), seeded so
 * every run uses the same text. 256 words stay under MAX_SENTENCE_CHARS (1000).
 */
export function shortWordSentence(n, seed = 7) {
  const vocab = [
    'the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran', 'to', 'up', 'big', 'red', 'it', 'is',
    'we', 'go', 'see', 'fox', 'and', 'old', 'new', 'sun', 'day', 'boy', 'art', 'owl', 'ink', 'by',
  ];
  let s = seed >>> 0;
  const words = [];
  for (let k = 0; k < n; k++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    words.push(vocab[(s >>> 16) % vocab.length]);
  }
  return words.join(' ');
}

/** A thumbnail canvas's pixels, read from a copy (reading the page's own canvas more than once makes
 *  Chromium warn in the console, which the tests keep clean). */
export const thumbnailPixels = (canvas) =>
  canvas.evaluate((c) => {
    const copy = document.createElement('canvas');
    copy.width = c.width;
    copy.height = c.height;
    const g = copy.getContext('2d', { willReadFrequently: true });
    g.drawImage(c, 0, 0);
    return { width: c.clientWidth, dpr: c.width / c.clientWidth, data: Array.from(g.getImageData(0, 0, c.width, c.height).data) };
  });
