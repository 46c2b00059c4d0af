import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';

/**
 * MCP elicitation (Codex names and shapes): an MCP server asks the person for
 * input; Wheelhouse sends `mcpServer/elicitation/request` to every connected
 * client, the first answer wins, and the others get `serverRequest/resolved`.
 */

const Text = z.string().nullable().optional();

/** Codex McpElicitationStringSchema. */
export const McpElicitationStringSchema = z
  .object({
    type: z.literal('string'),
    title: Text,
    description: Text,
    default: z.string().nullable().optional(),
    format: z.enum(['email', 'uri', 'date', 'date-time']).nullable().optional(),
    minLength: z.number().int().min(0).nullable().optional(),
    maxLength: z.number().int().min(0).nullable().optional(),
  })
  .strict();

/** Codex McpElicitationNumberSchema (`number` or `integer`). */
export const McpElicitationNumberSchema = z
  .object({
    type: z.enum(['number', 'integer']),
    title: Text,
    description: Text,
    default: z.number().nullable().optional(),
    minimum: z.number().nullable().optional(),
    maximum: z.number().nullable().optional(),
  })
  .strict();

export const McpElicitationBooleanSchema = z
  .object({ type: z.literal('boolean'), title: Text, description: Text, default: z.boolean().nullable().optional() })
  .strict();

const ConstOption = z.object({ const: z.string(), title: z.string() }).strict();

/** Codex McpElicitationUntitled/TitledSingleSelectEnumSchema and the legacy `enumNames` form. */
export const McpElicitationSingleSelectEnumSchema = z.union([
  z
    .object({ type: z.literal('string'), title: Text, description: Text, default: z.string().nullable().optional(), enum: z.array(z.string()), enumNames: z.array(z.string()).nullable().optional() })
    .strict(),
  z.object({ type: z.literal('string'), title: Text, description: Text, default: z.string().nullable().optional(), oneOf: z.array(ConstOption) }).strict(),
]);

/** Codex McpElicitationUntitled/TitledMultiSelectEnumSchema. */
export const McpElicitationMultiSelectEnumSchema = z
  .object({
    type: z.literal('array'),
    title: Text,
    description: Text,
    default: z.array(z.string()).nullable().optional(),
    minItems: z.number().int().min(0).nullable().optional(),
    maxItems: z.number().int().min(0).nullable().optional(),
    items: z.union([
      z.object({ type: z.literal('string'), enum: z.array(z.string()) }).strict(),
      z.object({ anyOf: z.array(ConstOption) }).strict(),
    ]),
  })
  .strict();

/** Codex McpElicitationPrimitiveSchema: one field of the form. */
export const McpElicitationPrimitiveSchema = z.union([
  McpElicitationSingleSelectEnumSchema,
  McpElicitationMultiSelectEnumSchema,
  McpElicitationStringSchema,
  McpElicitationNumberSchema,
  McpElicitationBooleanSchema,
]);
export type McpElicitationPrimitiveSchema = z.infer<typeof McpElicitationPrimitiveSchema>;

/** Codex McpElicitationSchema: the MCP `requestedSchema` of a form (a flat object of primitive fields). */
export const McpElicitationSchema = z
  .object({
    $schema: z.string().nullable().optional(),
    type: z.literal('object'),
    properties: z.record(z.string(), McpElicitationPrimitiveSchema),
    required: z.array(z.string()).nullable().optional(),
  })
  .strict();
export type McpElicitationSchema = z.infer<typeof McpElicitationSchema>;

const Meta = z.unknown().optional();

/** The ways a server can ask (Codex McpServerElicitationRequestParams `oneOf`). */
export const McpServerElicitation = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('form'), message: z.string(), requestedSchema: McpElicitationSchema, _meta: Meta }),
  z.object({ mode: z.literal('url'), message: z.string(), url: z.string(), elicitationId: z.string(), _meta: Meta }),
  z.object({ mode: z.literal('openai/form'), message: z.string(), requestedSchema: z.unknown(), _meta: Meta }),
  z.object({ mode: z.literal('openaiForm'), message: z.string(), requestedSchema: z.unknown(), _meta: Meta }),
  z.object({ mode: z.literal('openai/userVerification'), title: z.string(), description: z.string(), challenge: z.string(), _meta: Meta }),
]);

/** Codex McpServerElicitationRequestParams: who asks, for which thread (and turn, when a call of the turn led to it). */
export const McpServerElicitationRequestParams = z.intersection(
  z.object({ serverName: z.string(), threadId: z.string(), turnId: z.string().nullable().optional() }),
  McpServerElicitation,
);
export type McpServerElicitationRequestParams = z.infer<typeof McpServerElicitationRequestParams>;

export const McpServerElicitationAction = z.enum(['accept', 'decline', 'cancel']);
export type McpServerElicitationAction = z.infer<typeof McpServerElicitationAction>;

/** Codex McpServerElicitationRequestResponse; `content` only with `accept`. */
export const McpServerElicitationRequestResponse = z.object({
  action: McpServerElicitationAction,
  content: z.unknown().optional(),
  _meta: z.unknown().optional(),
});
export type McpServerElicitationRequestResponse = z.infer<typeof McpServerElicitationRequestResponse>;

export const mcpElicitationServerRequests = {
  'mcpServer/elicitation/request': defineMethod(
    McpServerElicitationRequestParams,
    McpServerElicitationRequestResponse,
    'An MCP server asks the person for input; answer {action, content}. Sent to every client; the first answer wins.',
  ),
} as const;

/** Codex ServerRequestResolvedNotification: ends any server request (approvals, elicitations, tool calls) on every client. */
export const serverRequestNotifications = {
  'serverRequest/resolved': defineNotification(
    z.object({ threadId: z.string(), requestId: z.union([z.string(), z.number().int()]) }),
    'A server request was answered (by any client), timed out or ended; drop its prompt.',
  ),
} as const;
