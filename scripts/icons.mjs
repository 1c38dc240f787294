// Rasterises assets/icon.svg into the manifest's PNG icons (icon-192.png, icon-512.png).
//
// The SVG is the one source of the icon, drawn by hand; this script turns it into PNGs with
// node:zlib alone (no image library, nothing downloaded). It understands exactly what the icon
// uses: a viewBox and axis-aligned <rect x y width height fill="#rrggbb"> elements painted in
// order, and fails on anything else, so a change to the SVG cannot be silently dropped. Each
// pixel takes every rect's colour in proportion to the part of the pixel the rect covers (exact
// area coverage, i.e. anti-aliased edges), so the output is the same bytes on every machine.
//
// Used by scripts/post-build.mjs (writes into $TRUNK_STAGING_DIR); run by hand to look at them:
//   node scripts/icons.mjs /tmp/icons
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';

export const ICON_SVG = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets', 'icon.svg');
export const PNG_SIZES = [192, 512];

/** The SVG's viewBox and rects ({x, y, w, h, rgb}); throws on any other drawing element. */
export function parseIcon(svg) {
  const body = svg.replace(/<!--[\s\S]*?-->/g, '');
  const viewBox = /<svg\b[^>]*\bviewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(body);
  if (!viewBox) throw new Error('icon.svg: expected viewBox="0 0 W H"');
  const [vw, vh] = [Number(viewBox[1]), Number(viewBox[2])];
  const rects = [];
  for (const [tag, name, attrs] of body.matchAll(/<(\/?[\w:-]+)([^>]*)>/g)) {
    if (name === 'svg' || name === '/svg') continue;
    if (name !== 'rect') throw new Error(`icon.svg: icons.mjs cannot draw ${tag}`);
    const attr = (key) => new RegExp(`\\b${key}="([^"]*)"`).exec(attrs)?.[1];
    const fill = attr('fill');
    if (!/^#[0-9a-f]{6}$/i.test(fill ?? '')) throw new Error(`icon.svg: fill must be #rrggbb in ${tag}`);
    const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => Number(attr(k) ?? NaN));
    if (![x, y, w, h].every(Number.isFinite)) throw new Error(`icon.svg: x, y, width, height needed in ${tag}`);
    const rgb = [1, 3, 5].map((i) => parseInt(fill.slice(i, i + 2), 16));
    rects.push({ x, y, w, h, rgb });
  }
  return { width: vw, height: vh, rects };
}

/** RGB pixels (size × size × 3) of the icon, each rect painted over the previous ones. */
export function rasterise({ width, height, rects }, size) {
  const pixels = new Float64Array(size * size * 3);
  const sx = size / width;
  const sy = size / height;
  // Length of [a, b) ∩ [p, p + 1).
  const overlap = (a, b, p) => Math.max(0, Math.min(b, p + 1) - Math.max(a, p));
  for (const r of rects) {
    const [x0, x1, y0, y1] = [r.x * sx, (r.x + r.w) * sx, r.y * sy, (r.y + r.h) * sy];
    for (let py = Math.max(0, Math.floor(y0)); py < Math.min(size, Math.ceil(y1)); py++) {
      const cy = overlap(y0, y1, py);
      for (let px = Math.max(0, Math.floor(x0)); px < Math.min(size, Math.ceil(x1)); px++) {
        const a = cy * overlap(x0, x1, px);
        const i = (py * size + px) * 3;
        for (let c = 0; c < 3; c++) pixels[i + c] = pixels[i + c] * (1 - a) + r.rgb[c] * a;
      }
    }
  }
  return Uint8Array.from(pixels, (v) => Math.round(v));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An 8-bit RGB PNG of `rgb` (size × size × 3 bytes). */
export function encodePng(rgb, size) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter, no interlace
  const raw = Buffer.alloc(size * (size * 3 + 1)); // each row: filter byte 0, then the pixels
  for (let y = 0; y < size; y++) raw.set(rgb.subarray(y * size * 3, (y + 1) * size * 3), y * (size * 3 + 1) + 1);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Writes icon-<size>.png for every size into `dir`; returns the file names. */
export function writeIcons(dir) {
  const icon = parseIcon(readFileSync(ICON_SVG, 'utf8'));
  mkdirSync(dir, { recursive: true });
  return PNG_SIZES.map((size) => {
    const name = `icon-${size}.png`;
    writeFileSync(path.join(dir, name), encodePng(rasterise(icon, size), size));
    return name;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/icons.mjs <output dir>');
    process.exit(1);
  }
  console.log(`icons: wrote ${writeIcons(dir).join(', ')} to ${dir}`);
}
