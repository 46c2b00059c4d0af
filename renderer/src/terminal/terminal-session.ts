import type { ParamsOf } from '../../../shared/protocol/index.js';
import type { WheelhouseClient } from '../client/wheelhouse-client.js';

type FollowUp = 'command/exec/write' | 'command/exec/resize' | 'command/exec/ack' | 'command/exec/terminate';

/** How a terminal's shell ended, for the panel to say. */
export type TerminalEnd = { readonly kind: 'exited'; readonly exitCode: number } | { readonly kind: 'failed'; readonly message: string };

export interface TerminalSessionOptions {
  /** The thread whose terminal this is: on a thread working on another machine, the runtime opens it there. */
  readonly threadId: string;
  /** Its folder (there, for a thread on another machine). */
  readonly cwd: string;
  readonly cols: number;
  readonly rows: number;
  /** Raw terminal output, in order. */
  readonly onOutput: (bytes: Uint8Array) => void;
  readonly onEnd: (end: TerminalEnd) => void;
}

/**
 * One interactive login shell in a pty, over `command/exec` (tty). Keystrokes
 * go out as `command/exec/write`; output arrives as this connection's
 * `command/exec/outputDelta` and is acknowledged (`command/exec/ack`) once
 * xterm has rendered it, so a flooding command pauses instead of freezing
 * the window.
 */
export class TerminalSession {
  readonly processId = `terminal-${crypto.randomUUID()}`;
  private ended = false;
  private unackedToSend = 0;
  private ackScheduled = false;
  private readonly encoder = new TextEncoder();
  private readonly stopListening: () => void;

  constructor(
    private readonly client: WheelhouseClient,
    options: TerminalSessionOptions,
  ) {
    this.stopListening = client.on('command/exec/outputDelta', (delta) => {
      if (delta.processId === this.processId) options.onOutput(fromBase64(delta.deltaBase64));
    });
    client
      .request('command/exec', {
        command: ['sh'],
        loginShell: true,
        tty: true,
        processId: this.processId,
        threadId: options.threadId,
        cwd: options.cwd,
        size: { cols: options.cols, rows: options.rows },
        disableOutputCap: true,
        disableTimeout: true,
        outputAck: true,
      })
      .then(
        (result) => this.finish(options, { kind: 'exited', exitCode: result.exitCode }),
        (error: unknown) => this.finish(options, { kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
      );
  }

  get isRunning(): boolean {
    return !this.ended;
  }

  /** What the person typed or pasted. */
  write(text: string): void {
    if (this.ended) return;
    this.send('command/exec/write', { processId: this.processId, deltaBase64: toBase64(this.encoder.encode(text)) });
  }

  resize(cols: number, rows: number): void {
    if (this.ended) return;
    this.send('command/exec/resize', { processId: this.processId, size: { cols, rows } });
  }

  /** Output the terminal has rendered; sent together once per task, not per chunk. */
  ack(bytes: number): void {
    if (this.ended) return;
    this.unackedToSend += bytes;
    if (this.ackScheduled) return;
    this.ackScheduled = true;
    setTimeout(() => {
      this.ackScheduled = false;
      const bytes = this.unackedToSend;
      this.unackedToSend = 0;
      if (bytes > 0 && !this.ended) this.send('command/exec/ack', { processId: this.processId, bytes });
    }, 0);
  }

  /** The program the person started at the shell and that still runs (null at the prompt, or once the shell ended). */
  async foregroundProgram(): Promise<string | null> {
    if (this.ended) return null;
    try {
      return (await this.client.request('command/exec/foreground', { processId: this.processId })).program;
    } catch {
      return null; // the shell ended meanwhile
    }
  }

  /** Ends the shell and everything it started. */
  terminate(): void {
    if (this.ended) return;
    this.send('command/exec/terminate', { processId: this.processId });
  }

  dispose(): void {
    this.terminate();
    this.stopListening();
  }

  private send<M extends FollowUp>(method: M, params: ParamsOf<M>): void {
    // A follow-up that loses the race with the shell's exit is answered with an error; the exit itself is reported.
    this.client.request(method, params).catch(() => undefined);
  }

  private finish(options: TerminalSessionOptions, end: TerminalEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.stopListening();
    options.onEnd(end);
  }
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
