import type http from 'node:http';
import type { z } from 'zod';
import { MAX_MESSAGE_BYTES } from '../../../shared/protocol/index.js';
import { describeIssues } from '../../../shared/protocol/validation.js';
import { HttpError } from './http-errors.js';

/** Reads a JSON object body (an empty body is `{}`), bounded like a protocol message. */
export async function readJsonBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_MESSAGE_BYTES) throw new HttpError(413, 'payload_too_large', `body exceeds ${MAX_MESSAGE_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, 'invalid_json', `body is not valid JSON: ${error instanceof Error ? error.message : 'malformed'}`);
  }
}

/** Validates a body against its schema; a failure names each bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, 'invalid_params', `invalid ${what}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
