import fs from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../shared/protocol/index.js';
import { CodexSchema, type CodexMethodSchemas, type SchemaFailure } from './codex-schema.js';

/**
 * Checks every message a test peer sends and receives against Codex's schema.
 *
 * - A request on a Codex method: its params against `<Method>Params`. The
 *   server must accept every Codex-valid request: a -32602 that blames a
 *   null, missing or unknown field of one is a violation. (Accepting more
 *   than Codex, e.g. a seed vocabulary, is allowed and counted.)
 * - Its response: the result against `<Method>Response`, an error against
 *   `JSONRPCErrorError`, paired by id.
 * - Notifications and server requests (and the peer's replies) likewise.
 * - Methods Codex does not have are counted as skipped, by name.
 *
 * Enabled for the whole unit-test run by wire-conformance-setup.ts; each
 * ProtocolPeer taps into the run (benchmarks never enable it).
 */

export type WireDirection = 'sent' | 'received';

export interface WireViolation {
  readonly method: string;
  /** What was checked: `params`, `result`, `error`, `acceptance`. */
  readonly part: string;
  readonly direction: WireDirection;
  readonly path: string;
  readonly message: string;
}

export function formatViolation(v: WireViolation): string {
  return `${v.method} ${v.part} (${v.direction}) breaks Codex's schema at ${v.path || '(root)'}: ${v.message}`;
}

interface PendingRequest {
  readonly method: string;
  readonly schemas: CodexMethodSchemas | undefined;
  /** Why the params were invalid by Codex's schema, if they were. */
  readonly paramsFailure: SchemaFailure | undefined;
  readonly params: unknown;
}

type Id = string | number;

/** The per-process tally and violations; one per vitest worker. */
export class WireConformanceRun {
  private schema: CodexSchema | undefined;
  readonly violations: WireViolation[] = [];
  /** Messages checked against a Codex definition. */
  validated = 0;
  /** Wheelhouse-only methods seen (not in Codex's schema), with how often. */
  readonly skipped = new Map<string, number>();
  /** Codex methods seen, so a test can prove what its session covered. */
  readonly covered = new Set<string>();

  constructor(private readonly recordFile: string | undefined) {}

  codex(): CodexSchema {
    this.schema ??= CodexSchema.load();
    return this.schema;
  }

  tap(): WireTap {
    this.codex(); // fail at peer creation, with the clear message, when the schema is missing
    return new WireTap(this);
  }

  /** Checks one value against a Codex definition; records a violation when it fails. */
  check(method: string, part: string, direction: WireDirection, ref: string, value: unknown): SchemaFailure | undefined {
    // What the server emits must be complete (every nullable property present); what a client sends need not.
    const failure = this.codex().check(ref, value, { complete: direction === 'received' });
    this.validated++;
    this.covered.add(method);
    if (failure) this.violations.push({ method, part, direction, ...failure });
    this.record({ method, part, direction, ref, valid: !failure, ...(failure && { failure, value }) });
    return failure;
  }

  skip(method: string, part: string, direction: WireDirection): void {
    this.skipped.set(method, (this.skipped.get(method) ?? 0) + 1);
    this.record({ method, part, direction, ref: null, valid: null });
  }

  /** A request's params were checked when it was sent; it is counted once its answer shows the verdict. */
  countRequest(method: string, direction: WireDirection, ref: string | null, valid: boolean): void {
    this.validated++;
    this.covered.add(method);
    this.record({ method, part: 'params', direction, ref, valid });
  }

  violation(v: WireViolation): void {
    this.violations.push(v);
  }

  takeViolations(): WireViolation[] {
    return this.violations.splice(0);
  }

  private record(entry: Record<string, unknown>): void {
    if (this.recordFile) fs.appendFileSync(this.recordFile, `${JSON.stringify(entry)}\n`);
  }
}

/** One peer's view: pairs responses with the requests they answer. */
export class WireTap {
  private readonly clientRequests = new Map<Id, PendingRequest>();
  private readonly serverRequests = new Map<Id, PendingRequest>();

  constructor(private readonly run: WireConformanceRun) {}

  sent(text: string): void {
    this.observe(text, 'sent');
  }

  received(text: string): void {
    this.observe(text, 'received');
  }

  private observe(text: string, direction: WireDirection): void {
    const message = parseObject(text);
    if (!message) return; // raw garbage a test sends on purpose; the carrier tests check the answer
    const method = typeof message.method === 'string' ? message.method : undefined;
    const id = message.id as Id | null | undefined;
    if (method !== undefined && id !== undefined && id !== null) {
      this.request(method, id, message.params, direction);
    } else if (method !== undefined) {
      this.notification(method, message.params, direction);
    } else if ('result' in message || 'error' in message) {
      this.response(message, direction);
    }
  }

  private request(method: string, id: Id, params: unknown, direction: WireDirection): void {
    const table = direction === 'sent' ? this.run.codex().methods.clientRequest : this.run.codex().methods.serverRequest;
    const pending = direction === 'sent' ? this.clientRequests : this.serverRequests;
    const schemas = table.get(method);
    if (!schemas) {
      this.run.skip(method, 'params', direction);
      pending.set(id, { method, schemas, paramsFailure: undefined, params });
      return;
    }
    const paramsFailure = schemas.params
      ? this.run.codex().check(schemas.params, params ?? {})
      : undefined;
    pending.set(id, { method, schemas, paramsFailure, params });
  }

  private notification(method: string, params: unknown, direction: WireDirection): void {
    const table = direction === 'sent' ? this.run.codex().methods.clientNotification : this.run.codex().methods.serverNotification;
    const schemas = table.get(method);
    if (schemas && !schemas.params) {
      // A notification without params (`initialized`): its name is all there is to check.
      this.run.countRequest(method, direction, null, params === undefined);
      return;
    }
    if (!schemas?.params) {
      this.run.skip(method, 'params', direction);
      return;
    }
    this.run.check(method, 'params', direction, schemas.params, params);
  }

  private response(message: Record<string, unknown>, direction: WireDirection): void {
    // A response we receive answers a request we sent, and the other way round.
    const pending = direction === 'received' ? this.clientRequests : this.serverRequests;
    const id = message.id as Id | null;
    const request = id === null ? undefined : pending.get(id);
    if (id !== null) pending.delete(id);
    if (!request) {
      // Answers to unparseable requests (id null) have no method; their shape is still Codex's.
      if ('error' in message) this.run.check('(no method)', 'error', direction, '#/definitions/JSONRPCErrorError', message.error);
      return;
    }
    const { method, schemas, paramsFailure } = request;
    if (!schemas) {
      this.run.skip(method, 'error' in message ? 'error' : 'result', direction);
      return;
    }
    // The request's own verdict, now that we know whether it was accepted.
    this.run.countRequest(method, direction === 'received' ? 'sent' : 'received', schemas.params ?? null, !paramsFailure);
    if ('error' in message) {
      const code = (message.error as { code?: unknown } | null)?.code;
      if (!paramsFailure && code === ErrorCode.InvalidParams && refusedForShape(request.params, message.error)) {
        this.run.violation({
          method,
          part: 'acceptance',
          direction: direction === 'received' ? 'sent' : 'received',
          path: '',
          message: `a request valid by Codex's schema was refused: ${JSON.stringify(message.error)}`,
        });
      }
      this.run.check(method, 'error', direction, '#/definitions/JSONRPCErrorError', message.error);
      return;
    }
    // A request Codex's schema does not allow yet Wheelhouse accepts is an extension (e.g. the seed
    // vocabulary of thread/queue/add): accepting more than Codex breaks no Codex client.
    if (schemas.result) this.run.check(method, 'result', direction, schemas.result, message.result);
  }
}

/**
 * Whether a -32602 refused a Codex-valid request for its shape (a null or
 * missing field, an unknown extra field) rather than for a rule about the
 * value that Codex's schema cannot express (a blank name, a missing folder).
 */
function refusedForShape(params: unknown, error: unknown): boolean {
  const issues = (error as { data?: { issues?: { path?: string[]; message?: string }[] } }).data?.issues;
  // No schema issues: a limit (nesting depth, array length, message size), not a shape the server misread.
  if (!Array.isArray(issues) || issues.length === 0) return false;
  return issues.some((issue) => {
    if (/unrecognized key/i.test(issue.message ?? '')) return true;
    let value: unknown = params;
    for (const key of issue.path ?? []) {
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    }
    return value === null || value === undefined;
  });
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

let active: WireConformanceRun | undefined;

/** Turns the checks on for this process; `recordDir` (optional) receives one NDJSON file per process. */
export function enableWireConformance(recordDir = process.env.WHEELHOUSE_WIRE_RECORD_DIR): WireConformanceRun {
  let recordFile: string | undefined;
  if (recordDir) {
    fs.mkdirSync(recordDir, { recursive: true });
    recordFile = path.join(recordDir, `wire-${process.pid}-${Date.now()}.ndjson`);
  }
  active ??= new WireConformanceRun(recordFile);
  return active;
}

/** The run's tap for a new peer, or undefined when the checks are off. */
export function wireTap(): WireTap | undefined {
  return active?.tap();
}

export function activeWireConformance(): WireConformanceRun | undefined {
  return active;
}
