import type { MockContentStep, MockControlStep, MockToolCall } from '../mock-model/index.js';

/**
 * The vocabulary of a scripted client session, run unchanged against Codex
 * (scripts/record-codex-traces.ts) and against Wheelhouse
 * (electron/server/codex-differential.test.ts).
 *
 * Params and answers are plain JSON. A string that is a placeholder of the
 * normalized trace (`<thread:1>`, `<turn:2>`, `<queuedSubmission:1>`, `<cwd>`)
 * stands for the real value the server handed out (or the real folder), so a
 * session reads like the trace it records.
 */

/** A tool call of a scripted reply: a named function, or an MCP tool addressed the way the agent offered it. */
export type SessionToolCall =
  | MockToolCall
  | {
      readonly id: string;
      /** Codex offers `mcp__<server>` namespaces, Wheelhouse flat `mcp__<server>__<tool>` functions. */
      readonly mcp: { readonly server: string; readonly tool: string };
      readonly arguments: string;
    };

/** One step of a scripted model reply: the mock's steps, tool calls that may name MCP tools, and named gates. */
export type ReplyStep =
  | Exclude<MockContentStep, { type: 'toolCalls' }>
  | { readonly type: 'toolCalls'; readonly calls: readonly SessionToolCall[] }
  | Exclude<MockControlStep, { type: 'waitFor' }>
  /** Holds the reply here until a `release` step opens the gate of this name. */
  | { readonly type: 'gate'; readonly name: string };

/** What the scripted model answers to one request. */
export type ScriptedReply = readonly ReplyStep[];

export type SessionStep =
  /**
   * Sends a request and waits for its answer (a result or an error: both are
   * recorded). With `until` (a key path as in trace-shape.ts, e.g.
   * `result.data[].tools.echo`), asks again after each notification that
   * follows an answer without that path: a wait on the server's state, not on time.
   */
  | { readonly kind: 'request'; readonly method: string; readonly params?: unknown; readonly until?: string }
  /** Sends a client notification (`initialized`). */
  | { readonly kind: 'notify'; readonly method: string; readonly params?: unknown }
  /** Queues the model's next replies, one per model request. */
  | { readonly kind: 'model'; readonly replies: readonly ScriptedReply[] }
  /**
   * Waits for the next notification of `method` not yet waited for.
   */
  | { readonly kind: 'await'; readonly method: string }
  /** Opens a gate a reply is held at. */
  | { readonly kind: 'release'; readonly gate: string }
  /** Stops the server and starts it again on the same home (what a client sees after a restart). */
  | { readonly kind: 'restart' };

/** Settings of the session's home: written as config.toml (and rules) for Codex and Wheelhouse alike. */
export interface SessionHome {
  readonly approvalPolicy: 'never' | 'on-request';
  readonly sandboxMode: 'read-only' | 'workspace-write';
  /** Lines of `<home>/rules/default.rules` (Codex's exec-policy language). */
  readonly rules?: readonly string[];
  /** Starts @modelcontextprotocol/server-everything as MCP server `everything`. */
  readonly mcpEverything?: boolean;
}

export interface CodexSession {
  /** File name of the trace: kebab-case. */
  readonly name: string;
  /** What a client does in it, in one sentence (for the docs). */
  readonly summary: string;
  readonly home: SessionHome;
  /** The client's answer to each server request method (approvals); a request without one fails the run. */
  readonly answers?: Readonly<Record<string, unknown>>;
  readonly steps: readonly SessionStep[];
}
