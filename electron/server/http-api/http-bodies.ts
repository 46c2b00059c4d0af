import { z } from 'zod';
import { HttpDynamicToolSpec } from './tool-calls.js';

/**
 * Request bodies of the HTTP API (snake_case, seed 004). Unknown fields are
 * refused so a typo never silently does nothing; the runtime's own schemas
 * (shared/protocol) check the values again when the handler is called.
 */
const Text = z.string().max(4096);

/** Turn input: a plain string, or Codex UserInput items (`[{type: "text", text}]`). */
export const HttpTurnInput = z.union([
  z.string(),
  z.array(z.object({ type: z.literal('text'), text: z.string() }).strict()),
]);

export function userInputOf(input: z.output<typeof HttpTurnInput>): { type: 'text'; text: string }[] {
  return typeof input === 'string' ? [{ type: 'text', text: input }] : input;
}

export const CreateThreadBody = z
  .object({
    cwd: Text.nullable().optional(),
    model: Text.nullable().optional(),
    provider: Text.nullable().optional(),
    ephemeral: z.boolean().nullable().optional(),
    /** Client-side tools of the thread's turns (seed 004 DynamicToolSpec). */
    dynamic_tools: z.array(HttpDynamicToolSpec).max(128).optional(),
  })
  .strict();

export const PatchThreadBody = z
  .object({
    name: z.string().optional(),
    archived: z.boolean().optional(),
  })
  .strict()
  .refine((body) => body.name !== undefined || body.archived !== undefined, 'give name and/or archived');

export const ForkThreadBody = z
  .object({
    last_turn_id: Text.nullable().optional(),
    cwd: Text.nullable().optional(),
    model: Text.nullable().optional(),
    provider: Text.nullable().optional(),
    ephemeral: z.boolean().nullable().optional(),
  })
  .strict();

/** Seed 004 TurnEnvironmentParams. Only the local machine exists as an environment today. */
export const TurnEnvironment = z
  .object({
    environment_id: z.literal('local', { error: 'unknown environment_id (only "local" exists)' }),
    cwd: Text,
  })
  .strict();

export const StartTurnBody = z
  .object({
    input: HttpTurnInput,
    environment: TurnEnvironment.nullable().optional(),
    model: Text.nullable().optional(),
    idempotency_key: z.string().min(1).max(200).optional(),
    /** More client-side tools for this thread, from this turn on (seed 004 DynamicToolSpec). */
    dynamic_tools: z.array(HttpDynamicToolSpec).max(128).optional(),
  })
  .strict();

export const SteerTurnBody = z.object({ input: HttpTurnInput }).strict();

export const ListThreadsQuery = z
  .object({
    archived: z.enum(['true', 'false']).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    cursor: z.string().max(500).optional(),
  })
  .strict();
