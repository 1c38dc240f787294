// Reliability: 1,000 consecutive updates — 900 temperature-slider steps from the keyboard
// and 100 sentences typed into the box — leave the JS heap, the wasm memory and the DOM flat.
//
// Measured after a forced garbage collection (CDP HeapProfiler.collectGarbage): the JS heap with
// CDP Runtime.getHeapUsage, the wasm memory as the byte length of the app's WebAssembly.Memory
// (captured by wrapping WebAssembly.instantiate*, before the app loads). A warm-up pass first
// brings every cache and the allocator to its working size, so the bound is on growth per update
// rather than on start-up. The measured numbers are printed (see docs/reliability.md, "Memory").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useApp } from './harness.mjs';

// Chromium only updates performance.memory coarsely without this flag (printed for reference).
const app = useApp({}, { args: ['--enable-precise-memory-info'] });

/**
 * Bounds on growth over the 1,000 measured updates. Measured (release build, Chromium): JS heap
 * +0.04 MiB, wasm memory +0 (it grows in 64 KiB pages), DOM +0. A view that keeps a closure or a
 * string alive per update (a leak in the inspector or the sentence box) grows the wasm memory by
 * hundreds of KiB per 1,000 updates without bound; 256 KiB catches that with headroom.
 */
const MAX_JS_HEAP_GROWTH = 1024 * 1024;
const MAX_WASM_GROWTH = 256 * 1024;

/** Runs before any page script: keep the app's WebAssembly.Memory in window.__aeMemory. */
const captureWasmMemory = () => {
  const keep = (result) => {
    const instance = result?.instance ?? result;
    const memory = instance?.exports?.memory;
    if (memory instanceof WebAssembly.Memory) window.__aeMemory = memory;
    return result;
  };
  const { instantiate, instantiateStreaming } = WebAssembly;
  WebAssembly.instantiate = (...args) => instantiate.apply(WebAssembly, args).then(keep);
  if (instantiateStreaming) {
    WebAssembly.instantiateStreaming = (...args) => instantiateStreaming.apply(WebAssembly, args).then(keep);
  }
};

/** 64 sentence shapes: 1 to 64 tokens with words, punctuation and non-Latin text. */
function sentence(i) {
  const words = ['the', 'cat', 'sat', 'on', 'mat', '.', 'a', 'dog', 'ran', '猫', 'שלום', '🙂', ',', 'home'];
  return Array.from({ length: (i % 64) + 1 }, (_, k) => words[(k * 5 + i) % words.length]).join(' ');
}

test('1,000 updates (900 slider steps, 100 sentences) leave JS heap, wasm memory and DOM flat', { timeout: 120_000 }, async (t) => {
  const { context, page, consoleLog } = await app.newPage();
  const cdp = await context.newCDPSession(page);
  await page.addInitScript(captureWasmMemory);
  try {
    await app.open(page);
    assert.ok(await page.evaluate(() => window.__aeMemory instanceof WebAssembly.Memory), 'found the wasm memory');
    const slider = page.locator('#temperature');
    let updates = 0;

    /** Press `key` on the slider `n` times; every press moves it one 0.01 step. */
    async function slide(key, n) {
      await slider.focus();
      for (let i = 0; i < n; i++) await page.keyboard.press(key);
      updates += n;
    }
    /** Type sentences i0..i0+n-1 into the box, waiting for each to be applied. */
    async function sentences(i0, n) {
      for (let i = i0; i < i0 + n; i++) {
        const text = sentence(i);
        await page.fill('#sentence', text);
        await page.locator('#sentence').press('Enter');
        await page.waitForFunction(
          (want) => document.querySelectorAll('.chips .chip').length === want,
          text.split(' ').length,
        );
      }
      updates += n;
    }
    async function measure() {
      await page.waitForTimeout(300); // let the debounced URL write and last draw finish
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      const { usedSize } = await cdp.send('Runtime.getHeapUsage');
      const page_ = await page.evaluate(() => ({
        wasm: window.__aeMemory.buffer.byteLength,
        perfHeap: performance.memory?.usedJSHeapSize ?? null,
        nodes: document.getElementsByTagName('*').length,
        draws: window.__aeTiming?.updates ?? 0,
      }));
      return { js: usedSize, ...page_ };
    }

    // Warm-up: the biggest sentence, both slider ends, every sentence size once.
    await sentences(63, 1);
    await slide('ArrowLeft', 200);
    await slide('ArrowRight', 400);
    await slide('ArrowLeft', 200);
    await sentences(0, 64);
    await sentences(0, 1);
    const before = await measure();
    const startValue = Number(await slider.inputValue());
    updates = 0;
    const t0 = Date.now();

    // The measured run: 900 slider steps (sweeping both ends) and 100 sentences, interleaved.
    await slide('ArrowLeft', 200);
    await sentences(1, 50);
    await slide('ArrowRight', 400);
    await sentences(51, 50);
    await slide('ArrowLeft', 300);
    const seconds = (Date.now() - t0) / 1000;
    assert.equal(updates, 1_000);
    // The slider really moved every time: 0 → -2 → +2 → -1 (log10 τ), so τ = 0.100 now.
    assert.equal(startValue, 0);
    assert.equal(Number(await slider.inputValue()), -1);
    assert.equal(await page.locator('[data-testid=tau]').textContent(), '0.100');
    await page.waitForFunction(() => document.querySelectorAll('.chips .chip').length === 37); // sentence(100)
    // Return to the warm-up's last view so the DOM can be compared node for node.
    await sentences(0, 1);
    await slide('ArrowRight', 100);
    const after = await measure();

    const growth = { js: after.js - before.js, wasm: after.wasm - before.wasm, nodes: after.nodes - before.nodes };
    const mib = (b) => `${(b / 1048576).toFixed(3)} MiB`;
    const report = [
      `1,000 updates in ${seconds.toFixed(1)} s (${after.draws - before.draws} canvas draws)`,
      `JS heap after GC: ${mib(before.js)} -> ${mib(after.js)} (growth ${mib(growth.js)}, bound ${mib(MAX_JS_HEAP_GROWTH)})`,
      `performance.memory.usedJSHeapSize: ${before.perfHeap} -> ${after.perfHeap}`,
      `wasm memory: ${mib(before.wasm)} -> ${mib(after.wasm)} (growth ${mib(growth.wasm)}, bound ${mib(MAX_WASM_GROWTH)})`,
      `DOM elements: ${before.nodes} -> ${after.nodes}`,
    ];
    for (const line of report) {
      t.diagnostic(line);
      console.log(`memory: ${line}`);
    }
    assert.ok(after.draws - before.draws >= 1_000, 'every update was drawn');
    assert.ok(growth.js <= MAX_JS_HEAP_GROWTH, `JS heap grew ${mib(growth.js)}`);
    assert.ok(growth.wasm <= MAX_WASM_GROWTH, `wasm memory grew ${mib(growth.wasm)}`);
    assert.equal(growth.nodes, 0, 'the same view has the same number of elements');
    consoleLog.assertClean();
  } finally {
    await context.close();
  }
});
