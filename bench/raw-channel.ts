import readline from 'node:readline';
import WebSocket from 'ws';
import type { ChildProcess } from 'node:child_process';

/**
 * A bare protocol channel for measurements: text in, text out, nothing parsed
 * on the way, so the client's own cost stays out of the figures.
 */
export interface RawChannel {
  send(text: string): void;
  onText(listener: (text: string) => void): void;
  close(): void;
}

/** The stdin/stdout of an app-server child as a channel. */
export function stdioChannel(child: ChildProcess): RawChannel {
  const { stdin, stdout } = child;
  if (!stdin || !stdout) throw new Error('child has no stdio pipes');
  const lines = readline.createInterface({ input: stdout, crlfDelay: Infinity });
  return {
    send: (text) => void stdin.write(`${text}\n`),
    onText: (listener) => void lines.on('line', listener),
    close: () => stdin.end(),
  };
}

/** Opens a WebSocket as a channel. */
export async function webSocketChannel(url: string): Promise<RawChannel> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return {
    send: (text) => socket.send(text),
    onText: (listener) => void socket.on('message', (data) => listener(String(data))),
    close: () => socket.close(),
  };
}

/** Sends one request and resolves with the raw text of the next message whose id matches. */
export function requester(channel: RawChannel): (method: string, params: unknown) => Promise<string> {
  let nextId = 1;
  const waiting = new Map<number, (text: string) => void>();
  channel.onText((text) => {
    // Notifications are serialised method-first; skip them without parsing.
    if (text.startsWith('{"method"')) return;
    // Responses are serialised id-first; read the id without parsing a large result.
    const leading = /^\{"id":(\d+),/.exec(text);
    const id = leading ? Number(leading[1]) : (JSON.parse(text) as { id?: unknown }).id;
    const done = typeof id === 'number' ? waiting.get(id) : undefined;
    if (done) {
      waiting.delete(id as number);
      done(text);
    }
  });
  return (method, params) =>
    new Promise<string>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      channel.send(JSON.stringify({ id, method, params }));
    });
}
