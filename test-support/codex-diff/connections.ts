import readline from 'node:readline';
import WebSocket from 'ws';
import type { TrackedChild } from '../child-process.js';
import type { WireConnection } from './session-driver.js';

/** How long a server may take to exit once its client has gone, before it is killed. */
const EXIT_GRACE_MS = 10_000;

/** Newline-delimited JSON over a child's stdin/stdout (`codex app-server`, `wheelhouse app-server`). */
export function stdioConnection(server: TrackedChild): WireConnection {
  const { stdin, stdout } = server.child;
  if (!stdin || !stdout) throw new Error('the server was started without pipes');
  stdin.on('error', () => undefined); // a write after the server exited is reported by the session's wait, not as a crash
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  return {
    send: (text) => void stdin.write(`${text}\n`),
    onMessage: (listener) => void lines.on('line', listener),
    onClose: (listener) => void lines.once('close', () => listener(`stdout ended; stderr: ${server.stderr().slice(-2000)}`)),
    close: async () => {
      stdin.end();
      await exitWithin(server, EXIT_GRACE_MS);
    },
  };
}

/** One WebSocket to `wheelhouse serve`; closing it also stops the server. */
export async function webSocketConnection(url: string, stopServer: () => Promise<unknown>): Promise<WireConnection> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.on('error', () => undefined); // the close event reports it
  return {
    send: (text) => socket.send(text),
    onMessage: (listener) => void socket.on('message', (data) => listener(String(data))),
    onClose: (listener) => void socket.once('close', (code) => listener(`WebSocket closed with ${code}`)),
    close: async () => {
      if (socket.readyState !== WebSocket.CLOSED) {
        const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
        socket.close();
        await closed;
      }
      await stopServer();
    },
  };
}

/** Waits for the server's exit; kills it when it outlives the grace period. */
async function exitWithin(server: TrackedChild, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const outcome = await Promise.race([server.exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') await server.stop('SIGKILL');
}
