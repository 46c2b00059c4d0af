import { createGate, type Gate, type MockModelServer, type MockScript, type MockScriptFactory, type MockStep } from '../mock-model/index.js';
import type { CodexSession, ScriptedReply, SessionStep, SessionToolCall } from './session-types.js';
import type { TraceNormalizer } from './trace-normalizer.js';
import { keyPathsOf } from './trace-shape.js';

/** A live connection to a server under test: message texts both ways. */
export interface WireConnection {
  send(text: string): void;
  /** Every message text from the server, in arrival order. */
  onMessage(listener: (text: string) => void): void;
  /** Once, when the connection ends. */
  onClose(listener: (reason: string) => void): void;
  /** Ends the connection (as a client does) and waits until the server has stopped. */
  close(): Promise<void>;
}

/** Starts the server a session runs against, on the session's home, and connects to it. */
export type ConnectServer = () => Promise<WireConnection>;

/** Sees every message text that passes (the schema checks of the unit tests). */
export interface WireObserver {
  sent(text: string): void;
  received(text: string): void;
}

export type TraceDirection = 'client' | 'server';

/** One normalized message of a session, in the order the client saw it. */
export interface TraceEntry {
  readonly from: TraceDirection;
  readonly message: Record<string, unknown>;
}

export interface RunSessionOptions {
  readonly session: CodexSession;
  readonly connect: ConnectServer;
  readonly mock: MockModelServer;
  readonly normalizer: TraceNormalizer;
  readonly observer?: WireObserver;
  /** How long one step may wait for the server (a bound on a hang, not an expected duration). */
  readonly stepTimeoutMs?: number;
}

type Message = Record<string, unknown>;

/**
 * Runs a session's steps against one server as a Codex client would and
 * returns its normalized trace. Waits are on messages, never on time; a
 * server request the session has no answer for, or a step the server never
 * answers, fails the run naming the session and the step.
 */
export async function runSession(options: RunSessionOptions): Promise<TraceEntry[]> {
  const run = new SessionRun(options);
  try {
    await run.start();
    for (const [index, step] of options.session.steps.entries()) {
      await run.step(step, `${options.session.name} step ${index + 1} (${describeStep(step)})`);
    }
    await run.stop();
    run.throwIfFailed();
  } catch (error) {
    await run.stop();
    throw new SessionRunError(error instanceof Error ? error.message : String(error), run.trace);
  }
  return run.trace;
}

/** A session that could not run to its end, with the trace up to there. */
export class SessionRunError extends Error {
  constructor(
    message: string,
    readonly trace: readonly TraceEntry[],
  ) {
    super(message);
  }
}

class SessionRun {
  readonly trace: TraceEntry[] = [];
  private connection: WireConnection | undefined;
  private nextId = 1;
  private readonly gates = new Map<string, Gate>();
  private readonly received: Message[] = [];
  /** Per method, how many of its notifications `await` steps have used. */
  private readonly awaited = new Map<string, number>();
  private readonly waiters = new Set<{ check: () => boolean; fail: (error: Error) => void }>();
  private failure: Error | undefined;

  constructor(private readonly options: RunSessionOptions) {}

  async start(): Promise<void> {
    const connection = await this.options.connect();
    this.connection = connection;
    connection.onMessage((text) => this.receive(text));
    connection.onClose((reason) => {
      if (this.connection !== connection) return;
      for (const waiter of this.waiters) waiter.fail(new Error(`the connection ended (${reason})`));
    });
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  async step(step: SessionStep, where: string): Promise<void> {
    switch (step.kind) {
      case 'request': {
        for (;;) {
          const answer = await this.request(step.method, step.params, where);
          if (step.until === undefined || keyPathsOf(answer).has(step.until)) return;
          // A notification after this answer (several may have arrived with it) is the cue to ask again.
          const after = this.received.indexOf(answer) + 1;
          await this.until(() => this.received.slice(after).some((m) => m.method !== undefined && m.id === undefined), `${where}, waiting for ${step.until}`);
        }
      }
      case 'notify':
        this.send({ method: step.method, ...(step.params === undefined ? {} : { params: this.resolve(step.params, where) }) });
        return;
      case 'model':
        this.options.mock.enqueue(...step.replies.map((reply) => this.script(reply)));
        return;
      case 'await': {
        const wanted = (this.awaited.get(step.method) ?? 0) + 1;
        await this.until(() => this.received.filter((m) => m.method === step.method && m.id === undefined).length >= wanted, where);
        this.awaited.set(step.method, wanted);
        return;
      }
      case 'release':
        this.gate(step.gate).release();
        return;
      case 'restart':
        await this.stop();
        await this.start();
        return;
      default: {
        const unreachable: never = step;
        throw new Error(`unknown session step ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** Sends one request; resolves with its answer. */
  private async request(method: string, params: unknown, where: string): Promise<Message> {
    const id = this.nextId++;
    this.send({ id, method, ...(params === undefined ? {} : { params: this.resolve(params, where) }) });
    const isAnswer = (m: Message) => m.id === id && m.method === undefined;
    await this.until(() => this.received.some(isAnswer), where);
    return this.received.find(isAnswer)!;
  }

  private resolve(value: unknown, where: string): unknown {
    try {
      return this.options.normalizer.resolve(value);
    } catch (error) {
      throw new Error(`${where}: ${(error as Error).message}`);
    }
  }

  private send(message: Message): void {
    const text = JSON.stringify(message);
    this.trace.push({ from: 'client', message: this.options.normalizer.normalize(message) as Message });
    this.options.observer?.sent(text);
    if (!this.connection) throw new Error('the session sent a message while no server was running');
    this.connection.send(text);
  }

  private receive(text: string): void {
    this.options.observer?.received(text);
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      this.fail(new Error(`${this.options.session.name}: the server sent a line that is not JSON: ${text.slice(0, 200)}`));
      return;
    }
    this.received.push(message);
    this.trace.push({ from: 'server', message: this.options.normalizer.normalize(message) as Message });
    if (typeof message.method === 'string' && message.id !== undefined) this.answer(message.method, message.id);
    for (const waiter of this.waiters) waiter.check();
  }

  /** Answers a server request with the session's scripted answer. */
  private answer(method: string, id: unknown): void {
    if (!this.connection) return; // asked while the server shuts down: there is no one left to answer
    const answer = this.options.session.answers?.[method];
    if (answer === undefined) {
      this.fail(new Error(`${this.options.session.name}: the server asked ${method}, which the session has no answer for`));
      this.send({ id, error: { code: -32601, message: `the scripted client cannot answer ${method}` } });
      return;
    }
    this.send({ id, result: this.options.normalizer.resolve(answer) });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiters) waiter.fail(error);
  }

  private until(done: () => boolean, where: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (done()) return Promise.resolve();
    const timeoutMs = this.options.stepTimeoutMs ?? 60_000;
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        check: () => {
          if (!done()) return false;
          finish();
          resolve();
          return true;
        },
        fail: (error: Error) => {
          finish();
          reject(new Error(`${where}: ${error.message}`));
        },
      };
      const timer = setTimeout(() => waiter.fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      this.waiters.add(waiter);
    });
  }

  private gate(name: string): Gate {
    let gate = this.gates.get(name);
    if (!gate) {
      gate = createGate();
      this.gates.set(name, gate);
    }
    return gate;
  }

  /** A reply as the mock's script, written when its request arrives (MCP tools are named as that request offers them). */
  private script(reply: ScriptedReply): MockScriptFactory {
    return ({ body }): MockScript =>
      reply.map((step): MockStep => {
        if (step.type === 'gate') return { type: 'waitFor', release: this.gate(step.name).promise };
        if (step.type === 'toolCalls') return { type: 'toolCalls', calls: step.calls.map((call) => offeredCall(call, body)) };
        return step;
      });
  }
}

interface OfferedTool {
  readonly type?: string;
  readonly name?: string;
  readonly tools?: readonly OfferedTool[];
}

/** An MCP tool call named the way the request offered it: a namespace function (Codex) or a flat function (Wheelhouse). */
function offeredCall(call: SessionToolCall, body: Readonly<Record<string, unknown>>) {
  if (!('mcp' in call)) return call;
  const namespace = `mcp__${call.mcp.server}`;
  const tools = (Array.isArray(body.tools) ? body.tools : []) as OfferedTool[];
  const grouped = tools.find((t) => t.type === 'namespace' && t.name === namespace)?.tools?.some((t) => t.name === call.mcp.tool);
  return grouped
    ? { id: call.id, namespace, name: call.mcp.tool, arguments: call.arguments }
    : { id: call.id, name: `${namespace}__${call.mcp.tool}`, arguments: call.arguments };
}

function describeStep(step: SessionStep): string {
  switch (step.kind) {
    case 'request':
    case 'notify':
    case 'await':
      return `${step.kind} ${step.method}`;
    case 'release':
      return `release ${step.gate}`;
    default:
      return step.kind;
  }
}
