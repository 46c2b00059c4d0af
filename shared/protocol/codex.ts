import { z } from 'zod';

/**
 * Codex 0.169.0 app-server shapes that Wheelhouse emits as Codex does (see
 * ../shared/reference/). Codex sends every `Option<T>` field as `null` rather
 * than leaving it out, and its clients are generated from that schema; so for
 * each object we emit, the Codex fields Wheelhouse has no value for are listed
 * here and sent as `null`. Wheelhouse-only fields live beside them as extras
 * (never renaming or dropping a Codex field).
 */


/** A zod shape of fields that are always null, and the matching value to spread into an object. */
export function nullFields<const K extends string>(...keys: K[]) {
  const shape = Object.fromEntries(keys.map((k) => [k, z.null()])) as { [P in K]: z.ZodNull };
  const values = Object.fromEntries(keys.map((k) => [k, null])) as { [P in K]: null };
  return { shape, values };
}

/** Codex `AskForApproval` as it may appear in a result (`on-failure` is not part of 0.169.0). */
export const CodexAskForApproval = z.enum(['untrusted', 'on-request', 'never']);
export type CodexAskForApproval = z.infer<typeof CodexAskForApproval>;

/** Who reviews approval requests; Wheelhouse always asks the user. */
export const ApprovalsReviewer = z.enum(['user', 'auto_review', 'guardian_subagent']);

/** Codex `SandboxPolicy`: what the agent's tools may touch, as an object. */
export const SandboxPolicy = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dangerFullAccess') }),
  z.object({ type: z.literal('readOnly'), networkAccess: z.boolean() }),
  z.object({
    type: z.literal('workspaceWrite'),
    writableRoots: z.array(z.string()),
    networkAccess: z.boolean(),
    excludeTmpdirEnvVar: z.boolean(),
    excludeSlashTmp: z.boolean(),
  }),
]);
export type SandboxPolicy = z.infer<typeof SandboxPolicy>;

/** Codex `SessionSource` (the simple variants; `{custom}` / `{subAgent}` are never produced). */
export const CodexSessionSource = z.enum(['cli', 'vscode', 'exec', 'appServer', 'unknown']);
export type CodexSessionSource = z.infer<typeof CodexSessionSource>;

/** Codex `ThreadActiveFlag`. */
export const ThreadActiveFlag = z.enum(['waitingOnApproval', 'waitingOnUserInput']);

/** Codex `CodexErrorInfo` variants Wheelhouse maps its turn error kinds onto. */
export const CodexErrorInfo = z.union([
  z.enum([
    'contextWindowExceeded',
    'usageLimitExceeded',
    'rateLimitExceeded',
    'serverOverloaded',
    'modelNotFound',
    'internalServerError',
    'unauthorized',
    'badRequest',
    'other',
  ]),
  z.object({ httpConnectionFailed: z.object({ httpStatusCode: z.number().int().nullable() }) }).strict(),
  /** A stream that broke before the reply was complete (Codex's `error` with `willRetry` while it reconnects). */
  z.object({ responseStreamDisconnected: z.object({ httpStatusCode: z.number().int().nullable() }) }).strict(),
]);
export type CodexErrorInfo = z.infer<typeof CodexErrorInfo>;

/** Codex `DynamicToolCallOutputContentItem` (text only: Wheelhouse tools return text). */
export const DynamicToolCallOutputContentItem = z.object({ type: z.literal('inputText'), text: z.string() });
