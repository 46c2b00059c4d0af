import type { z } from 'zod';

/**
 * Which requests of a method run one after another, declared beside the method
 * (as Codex's `serialization:` in app-server-protocol's common.rs) and enforced
 * by the dispatcher, so no handler needs a lock of its own:
 * - `thread`: requests naming the same thread (`params.threadId`) run in the
 *   order they arrived, across every client; other threads' run meanwhile.
 * - `global`: every request with the same key runs one at a time (`config`:
 *   config.toml and the provider keys).
 * - `concurrent`: runs as soon as it arrives, said out loud (a read that must
 *   not wait behind its namespace's slow writes).
 * A method without one runs as soon as it arrives.
 */
export type SerializationScope = { readonly kind: 'thread' } | { readonly kind: 'global'; readonly key: string } | { readonly kind: 'concurrent' };

/** Serialized per thread, by `params.threadId`. */
export const perThread: SerializationScope = { kind: 'thread' };
/** Runs at once, beside anything else. */
export const concurrent: SerializationScope = { kind: 'concurrent' };
/** One at a time with every other request of the same key. */
export const oneAtATime = (key: string): SerializationScope => ({ kind: 'global', key });

/** A client-to-server request (or server-to-client request): params and result schemas. */
export interface MethodSpec<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly result: R;
  readonly summary: string;
  /** Which requests of this method wait for each other; absent: none. */
  readonly serialization?: SerializationScope;
}

/**
 * The queue a request of `spec` waits in, from its validated params: `thread:<id>`,
 * `global:<key>`, or null to run at once (no scope, or a thread method called
 * without a thread).
 */
export function serializationKeyOf(spec: Pick<MethodSpec, 'serialization'>, params: unknown): string | null {
  const scope = spec.serialization;
  if (!scope || scope.kind === 'concurrent') return null;
  if (scope.kind === 'global') return `global:${scope.key}`;
  const threadId = typeof params === 'object' && params !== null ? (params as { threadId?: unknown }).threadId : undefined;
  return typeof threadId === 'string' ? `thread:${threadId}` : null;
}

/** A one-way message: its params schema. */
export interface NotificationSpec<P extends z.ZodType = z.ZodType> {
  readonly params: P;
  readonly summary: string;
}

export function defineMethod<P extends z.ZodType, R extends z.ZodType>(
  params: P,
  result: R,
  summary: string,
  serialization?: SerializationScope,
): MethodSpec<P, R> {
  return serialization ? { params, result, summary, serialization } : { params, result, summary };
}

export function defineNotification<P extends z.ZodType>(params: P, summary: string): NotificationSpec<P> {
  return { params, summary };
}
