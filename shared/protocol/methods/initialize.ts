import { z } from 'zod';
import { defineMethod } from '../define.js';

export const ClientInfo = z.object({
  name: z.string().min(1).max(200),
  title: z.string().max(200).nullable().optional(),
  version: z.string().max(100),
});
export type ClientInfo = z.infer<typeof ClientInfo>;

export const InitializeParams = z.object({
  clientInfo: ClientInfo,
  capabilities: z
    .object({
      /** Notification methods this client does not want to receive. */
      optOutNotificationMethods: z.array(z.string().max(256)).max(256).optional(),
    })
    .nullable()
    .optional(),
});

export const InitializeResult = z.object({
  userAgent: z.string(),
  /** Absolute path of the Wheelhouse home (the Codex `codexHome` field). */
  wheelhouseHome: z.string(),
  platformFamily: z.string(),
  platformOs: z.string(),
  serverVersion: z.string(),
});
export type InitializeResult = z.infer<typeof InitializeResult>;

export const initializeMethods = {
  initialize: defineMethod(
    InitializeParams,
    InitializeResult,
    'Handshake; must be the first request on every connection.',
  ),
} as const;
