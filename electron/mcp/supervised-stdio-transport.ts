import os from 'node:os';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ProcessSupervisor, SupervisedProcess } from '../exec/index.js';
import type { McpTransportConfig } from '../config/mcp-config.js';

/** Most of a server's stderr kept to explain a failure. */
const STDERR_TAIL_CHARS = 2_000;
/** Log kept per server process (its stdout is the protocol; stderr is what helps). */
const LOG_CAP_BYTES = 1024 * 1024;

/**
 * The MCP SDK's stdio transport, with the process run by Wheelhouse's one
 * process supervisor (electron/exec): pipes, the user's login environment,
 * the command resolved on PATH, and the whole process tree killed on close
 * (an `npx` launcher's grandchildren too).
 */
export class SupervisedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: SupervisedProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private stderr = '';

  constructor(
    private readonly supervisor: ProcessSupervisor,
    private readonly spec: Extract<McpTransportConfig, { type: 'stdio' }>,
    private readonly label: string,
  ) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  stderrTail(): string {
    return this.stderr;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('already started');
    const child = await this.supervisor.spawn({
      command: [this.spec.command, ...this.spec.args],
      cwd: this.spec.cwd ?? os.homedir(),
      env: { ...this.spec.env },
      // Provider keys are removed from every child; a server gets one only when config.toml lists it.
      inheritSecrets: this.spec.envVars,
      tty: false,
      outputCapBytes: Number.POSITIVE_INFINITY,
      logCapBytes: LOG_CAP_BYTES,
      label: `mcp:${this.label}`,
    });
    this.child = child;
    child.subscribe((event) => {
      if (event.type === 'output' && event.stream === 'stdout') {
        this.buffer.append(event.data);
        this.deliver();
      } else if (event.type === 'output') {
        this.stderr = (this.stderr + event.data.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      } else if (event.type === 'exit') {
        this.child = null;
        this.onclose?.();
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child) throw new Error('the MCP server process is not running');
    this.child.write(serializeMessage(message));
  }

  /** Closes stdin, then terminates the tree (SIGTERM, SIGKILL after the grace period). */
  async close(): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.endInput();
    await child.terminate({ graceMs: 2_000 });
  }

  /** SIGKILL to the tree now, for a host that is exiting. */
  killNow(): void {
    this.child?.killNow();
  }

  private deliver(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (!message) return;
      this.onmessage?.(message);
    }
  }
}
