// The least a Node server can do to carry a command's output to a client over stdio, as a
// baseline for `wheelhouse app-server` in bench/carrier-throughput.ts: node-pty reads the
// command, reads are batched as Wheelhouse's supervisor batches them (64 KB or 16 ms), and each
// batch goes out as a `command/exec/outputDelta` line with Node's native base64. Nothing is
// stored, nothing is checked, no event log, no flow control. Says `ready` on stderr once loaded,
// starts the command when its stdin ends (so the bench times the output, not this process's
// start) and ends stdout when the command exits.
// Plain JavaScript on purpose: it runs without a TS loader, like the servers under test.
import * as pty from 'node-pty';

const [command, ...args] = process.argv.slice(2);
const MAX_BATCH_BYTES = 64 * 1024;
const MAX_DELAY_MS = 16;

process.stdin.resume();
process.stdin.on('end', () => {
  const terminal = pty.spawn(command, args, { cwd: process.cwd(), env: process.env, encoding: null, cols: 80, rows: 24 });
  let pending = [];
  let pendingBytes = 0;
  let timer = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pendingBytes === 0) return;
    const data = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    process.stdout.write(`{"method":"command/exec/outputDelta","params":{"processId":"flood","stream":"stdout","deltaBase64":"${data.toString('base64')}","capReached":false}}\n`);
  };
  terminal.onData((chunk) => {
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (pendingBytes >= MAX_BATCH_BYTES) flush();
    else timer ??= setTimeout(flush, MAX_DELAY_MS);
  });
  terminal.onExit(() => {
    flush();
    process.stdout.end();
  });
});
process.stderr.write('ready\n');
