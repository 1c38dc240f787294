// "Export as a figure": the Download SVG button saves a valid SVG (parsed here by
// Python's xml.etree, a real XML parser) whose every cell has the colour the canvas shows at that
// cell, with token labels on both axes and a caption naming the sentence, seed, head, τ and any
// "Break it" switch; a sentence with < & " ' survives as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { useApp, downloadText } from './harness.mjs';
import { heatmapLayout } from './heatmap_geometry.mjs';

const app = useApp();

/** Parses the SVG with xml.etree; returns its root tag, cells, labels, title and caption. */
function parseSvg(text) {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
ns = '{http://www.w3.org/2000/svg}'
def texts(cls):
    return [t.text for t in root.iter(ns + 'text') if t.get('class') == cls]
print(json.dumps({
  'tag': root.tag,
  'cells': [{'row': int(r.get('data-row')), 'col': int(r.get('data-col')), 'fill': r.get('fill')}
            for r in root.iter(ns + 'rect') if r.get('class') == 'cell'],
  'hatches': sum(1 for r in root.iter(ns + 'rect') if r.get('class') == 'hatch'),
  'rows': texts('row-label'), 'cols': texts('col-label'),
  'caption': texts('caption')[0], 'title': root.find(ns + 'title').text,
}))`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: text, encoding: 'utf8' }));
}

async function downloadSvg(page) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download SVG' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), 'attention.svg');
  return downloadText(download);
}

/** The main canvas's pixel inside cell (i, j), as 'rgb(r,g,b)'. The point is a fifth of the way
 * into the cell, not its centre, where the cell's percentage is printed. */
async function canvasCellColours(page, n, tokens) {
  const canvas = page.locator('canvas.heatmap').first();
  const width = await canvas.evaluate((c) => c.clientWidth);
  const longest = Math.max(...tokens.map((t) => [...t].length));
  const layout = heatmapLayout(width, n, longest, 13.0, true);
  const points = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) points.push({ i, j, ...layout.at(i, j, 0.2, 0.2) });
  }
  // One read of the whole canvas (many small reads make Chromium warn on the console).
  return canvas.evaluate((c, pts) => {
    const dpr = c.width / c.clientWidth;
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return pts.map(({ i, j, x, y }) => {
      const k = 4 * (Math.floor(y * dpr) * c.width + Math.floor(x * dpr));
      return { i, j, fill: `rgb(${data[k]},${data[k + 1]},${data[k + 2]})` };
    });
  }, points);
}

for (const { name, query, caption, broken } of [
  {
    name: 'a sentence with < & " \' (head 2 of 2, τ = 0.5, seed 11)',
    sentence: `Tom's "x < y" & z .`,
    query: `s=${encodeURIComponent(`Tom's "x < y" & z .`)}&heads=2&head=2&tau=0.5&seed=11`,
    caption: `“Tom's "x < y" & z .” · seed 11 · head 2 of 2 · τ = 0.500 · positions off`,
    broken: false,
  },
  {
    name: 'broken attention (mask with 0, positions on)',
    query: 'broken=mask-zero&pos=1',
    caption: '“The cat sat on the mat .” · seed 1337 · head 1 of 2 · τ = 1.00 · positions on · BROKEN: Mask with 0 instead of −∞',
    broken: true,
  },
]) {
  test(`SVG export, ${name}: valid XML, cells equal the canvas, labels and caption`, { timeout: 90_000 }, async () => {
    const { context, page, consoleLog } = await app.newPage({ deviceScaleFactor: 2 });
    try {
      await app.open(page, query);
      const tokens = await page.locator('.chips .chip').allTextContents();
      const n = tokens.length;
      const svg = parseSvg(await downloadSvg(page));
      assert.equal(svg.tag, '{http://www.w3.org/2000/svg}svg');
      assert.equal(svg.caption, caption);
      assert.equal(svg.title, caption);
      assert.deepEqual(svg.rows, tokens);
      assert.deepEqual(svg.cols, tokens);
      assert.equal(svg.cells.length, n * n);
      const canvas = await canvasCellColours(page, n, tokens);
      for (const { i, j, fill } of canvas) {
        const cell = svg.cells.find((c) => c.row === i + 1 && c.col === j + 1);
        if (broken && j > i) {
          // Hatched on the canvas (lines over the colour): the figure colours it, not masked grey.
          assert.notEqual(cell.fill, 'rgb(200,200,200)', `future cell (${i + 1}, ${j + 1})`);
          continue;
        }
        assert.equal(cell.fill, fill, `cell (${i + 1}, ${j + 1})`);
      }
      // With mask-with-0 every future cell has weight: all of them are hatched, none of them grey.
      assert.equal(svg.hatches, broken ? (n * (n - 1)) / 2 : 0);
      consoleLog.assertClean();
    } finally {
      await context.close();
    }
  });
}
