import type { z } from 'zod';
import { RpcError } from './errors.js';

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
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    throw RpcError.invalidParams(`invalid params for ${method}: ${describeIssues(parsed.error)}`, {
      issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
    });
  }
  return parsed.data;
}
