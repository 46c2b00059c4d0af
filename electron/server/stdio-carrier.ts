import type { Readable, Writable } from 'node:stream';
import { ErrorCode, MAX_MESSAGE_BYTES } from '../../shared/protocol/index.js';
import type { RpcHost } from './rpc-host.js';
import { WriteBatcher } from './write-batcher.js';

/**
 * Newline-delimited JSON over a pair of streams (`wheelhouse app-server`).
 * A line longer than the cap is discarded as it streams in, never buffered.
 * Resolves when the input ends and every in-flight request has answered.
 */
export function serveStdio(host: RpcHost, input: Readable, output: Writable): Promise<void> {
  const batcher = new WriteBatcher(output);
  const send = (text: string, urgent: boolean) => {
    batcher.beforeWrite(urgent);
    output.write(`${text}
`);
  };
  const connection = host.connect('stdio', { send });
  const inflight = new Set<Promise<void>>();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let discarding = false;

  const handleLine = (line: string) => {
    if (line.trim().length === 0) return;
    const done = connection.receive(line).finally(() => inflight.delete(done));
    inflight.add(done);
  };

  const rejectOversized = () =>
    output.write(
      `${JSON.stringify({ id: null, error: { code: ErrorCode.InvalidRequest, message: `message exceeds ${MAX_MESSAGE_BYTES} bytes` } })}\n`,
    );

  return new Promise<void>((resolve) => {
    input.on('data', (chunk: Buffer) => {
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 ? chunk.length : newline;
        if (!discarding) {
          pending.push(chunk.subarray(start, end));
          pendingBytes += end - start;
          if (pendingBytes > MAX_MESSAGE_BYTES) {
            discarding = true;
            pending = [];
            pendingBytes = 0;
            rejectOversized();
          }
        }
        if (newline === -1) break;
        if (!discarding) handleLine(Buffer.concat(pending).toString('utf8'));
        pending = [];
        pendingBytes = 0;
        discarding = false;
        start = newline + 1;
      }
    });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      if (!discarding && pendingBytes > 0) handleLine(Buffer.concat(pending).toString('utf8'));
      void Promise.allSettled([...inflight]).then(() => {
        batcher.dispose();
        host.disconnect(connection);
        resolve();
      });
    };
    input.on('end', finish);
    // A signal handler destroys stdin, which emits 'close' without 'end'.
    input.on('close', finish);
    input.on('error', () => {
      host.disconnect(connection);
      resolve();
    });
  });
}
