// The training page's Web Worker: one run's Trainer, off the page's main thread
// (src/web/train_worker.rs; docs/training.md, "Training in Web Workers").
// The page starts it as a module worker, new Worker('train-worker.js?glue=…&wasm=…', { type: 'module' }),
// naming its own wasm-bindgen glue and wasm (relative to this file, which sits beside train.html),
// so the worker runs the page's own wasm module: no second wasm to load, and the same arithmetic.
// The wasm's main() sees no window and does nothing; train_worker() takes over the messages.
const params = new URL(self.location.href).searchParams;
const glue = await import(new URL(params.get('glue'), self.location.href).href);
await glue.default({ module_or_path: new URL(params.get('wasm'), self.location.href) });
glue.train_worker();
