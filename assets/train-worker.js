// The training page's Web Worker: one run's Trainer, off the page's main thread
// (src/train_worker.rs; docs/training.md, "Training in Web Workers").
// The page starts it as a module worker, new Worker('train-worker.js?glue=…&wasm=…', { type: 'module' }),
// naming its own wasm-bindgen glue and wasm (relative to this file, which sits beside train.html),
// and posts its compiled WebAssembly.Module as the first message: the worker runs the page's own
// module, so it neither downloads nor compiles the wasm again, and does the same arithmetic. Where
// the module cannot be posted the message is null, and the worker loads the wasm named here.
// The wasm's main() sees no window and does nothing; train_worker() takes over the messages (the
// page sends none before the worker's first report says it is ready).
const params = new URL(self.location.href).searchParams;
const at = (name) => new URL(params.get(name), self.location.href);
const glue = import(at('glue').href);
self.onmessage = (event) => {
  self.onmessage = null;
  glue
    .then(async (init) => {
      await init.default({ module_or_path: event.data ?? at('wasm') });
      init.train_worker();
    })
    // Thrown from a task of its own, a failure reaches the page as the worker's error event, and
    // the page trains on its main thread instead.
    .catch((error) => setTimeout(() => { throw error; }));
};
