import { z } from 'zod';
import { defineMethod } from '../define.js';

export const ClientInfo = z.object({
  name: z.string().min(1).max(200),
  title: z.string().max(200).nullable().optional(),
  version: z.string().max(100),
});
export type ClientInfo = z.infer<typeof ClientInfo>;

/** The desktop window's `clientInfo.name`: its threads are the person's (electron/runtime/handlers/session-source.ts). */
export const DESKTOP_CLIENT_NAME = 'wheelhouse-ui';
/** The `originator` of a thread Wheelhouse makes itself (an agent job's), as a client's carries its `clientInfo.name`. */
export const WHEELHOUSE_ORIGINATOR = 'wheelhouse';

export const InitializeParams = z.object({
  clientInfo: ClientInfo,
  capabilities: z
    .object({
      /** Notification methods this client does not want to receive. */
      optOutNotificationMethods: z.array(z.string().max(256)).max(256).nullable().optional(),
    })
    .nullable()
    .optional(),
});

export const InitializeResult = z.object({
  /**
   * `wheelhouse/<version> (codex-app-server <codex version>; <os> <release>; <arch>) <client>/<version>`:
   * says truthfully which server this is and which Codex protocol it speaks (Codex's
   * own is `<originator>/<version> (<os>; <arch>) <client>/<version>`).
   */
  userAgent: z.string(),
  /** Codex: absolute path of the server's home (the Wheelhouse home). */
  codexHome: z.string(),
  /** The same path under Wheelhouse's own name. */
  wheelhouseHome: z.string(),
  /** `unix` or `windows`. */
  platformFamily: z.string(),
  /** `linux`, `macos` or `windows`, as Codex names them. */
  platformOs: z.string(),
  /** The Codex app-server protocol version these messages follow. */
  codexProtocolVersion: z.string(),
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
