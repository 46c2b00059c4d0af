import type { z } from 'zod';
import { RpcError } from './errors.js';
import { MAX_PARAMS_ARRAY_ITEMS, MAX_PARAMS_DEPTH } from './limits.js';

/** Formats the first schema issue as "path: message" so a client can find the bad field. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.map(String).join('.') : '(params)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Parses params against a schema or throws -32602 naming the failing path. */
export function parseParams<S extends z.ZodType>(schema: S, method: string, params: unknown): z.output<S> {
  assertParamsBounded(method, params);
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    throw RpcError.because('request.invalidParams', `invalid params for ${method}: ${describeIssues(parsed.error)}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    });
  }
  return parsed.data;
}

interface Visit {
  readonly value: unknown;
  readonly depth: number;
  readonly key: string;
  readonly parent: Visit | null;
}

/**
 * Refuses params nested deeper than MAX_PARAMS_DEPTH or holding an array
 * longer than MAX_PARAMS_ARRAY_ITEMS, with -32602 naming where. Walks with
 * its own stack, so it cannot overflow on the input it exists to refuse.
 */
export function assertParamsBounded(method: string, params: unknown): void {
  const stack: Visit[] = [{ value: params, depth: 0, key: '(params)', parent: null }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value, depth } = visit;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_PARAMS_DEPTH) {
      throw RpcError.because('request.invalidParams', `invalid params for ${method}: ${pathOf(visit)}: nested deeper than ${MAX_PARAMS_DEPTH} levels`, {
        maxDepth: MAX_PARAMS_DEPTH,
      });
    }
    if (Array.isArray(value)) {
      if (value.length > MAX_PARAMS_ARRAY_ITEMS) {
        throw RpcError.because(
          'request.invalidParams',
          `invalid params for ${method}: ${pathOf(visit)}: more than ${MAX_PARAMS_ARRAY_ITEMS} items (${value.length})`,
          { maxItems: MAX_PARAMS_ARRAY_ITEMS },
        );
      }
      value.forEach((child, index) => stack.push({ value: child, depth: depth + 1, key: String(index), parent: visit }));
    } else {
      for (const [key, child] of Object.entries(value)) stack.push({ value: child, depth: depth + 1, key, parent: visit });
    }
  }
}

/** "edits.0.value.a" for a visit; the first few segments only, since the path can be as deep as the cap. */
function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at !== null && at.parent !== null; at = at.parent) keys.push(at.key);
  keys.reverse();
  const shown = keys.length > 6 ? [...keys.slice(0, 6), '…'] : keys;
  return shown.length === 0 ? '(params)' : shown.join('.');
}
