// Serve a built dist/ on 127.0.0.1 until interrupted (used by scripts/serve.sh).
// Usage: node e2e/serve.mjs [--port 8080] [--dir dist] [--prefix /course/attention-explorer/] [--no-gzip]
// Responses are gzip-compressed, as a real static host serves them.
import { startServer } from './harness.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1] : dflt;
};
const port = Number(opt('port', process.env.PORT || 8080));
const dir = opt('dir', undefined);
const prefix = opt('prefix', '/');

const gzip = !argv.includes('--no-gzip');
const srv = await startServer({ port, quiet: false, prefix, gzip, ...(dir ? { dir } : {}) });
console.log(`\n  Attention Explorer is being served from ${srv.dir}\n\n  Open:  ${srv.url}/\n\n  (Ctrl+C to stop)\n`);
const stop = async () => {
  await srv.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
