import type { z } from 'zod';
import { isPlainRecord } from '../plain-json.js';
import type { InitializeParams } from './initialize.js';

type InitializeParamsOutput = z.output<typeof InitializeParams>;

/**
 * `initialize` params as clients send them, recognised without zod: the first
 * request of every connection is then answered before zod and the protocol's
 * schemas load (docs/startup.md). It accepts only what `InitializeParams`
 * accepts and returns what that schema would return (unknown keys left out,
 * as zod does; plain-initialize.test.ts holds the two side by side); for
 * anything else it returns null and the request goes through the schema,
 * which gives the error.
 */
export function plainInitializeParams(params: unknown): InitializeParamsOutput | null {
  if (!isPlainRecord(params)) return null;
  const { clientInfo, capabilities } = params;
  if (!isPlainRecord(clientInfo)) return null;
  const { name, title, version } = clientInfo;
  if (typeof name !== 'string' || name.length < 1 || name.length > 200) return null;
  if (typeof version !== 'string' || version.length > 100) return null;
  if (title !== undefined && title !== null && (typeof title !== 'string' || title.length > 200)) return null;
  const info = { name, ...('title' in clientInfo ? { title: title as string | null } : {}), version };
  if (!('capabilities' in params)) return { clientInfo: info };
  if (capabilities === null) return { clientInfo: info, capabilities: null };
  if (!isPlainRecord(capabilities)) return null;
  if (!('optOutNotificationMethods' in capabilities)) return { clientInfo: info, capabilities: {} };
  const optOut = capabilities['optOutNotificationMethods'];
  if (optOut === null) return { clientInfo: info, capabilities: { optOutNotificationMethods: null } };
  if (!Array.isArray(optOut) || optOut.length > 256) return null;
  if (!optOut.every((method) => typeof method === 'string' && method.length <= 256)) return null;
  return { clientInfo: info, capabilities: { optOutNotificationMethods: [...(optOut as string[])] } };
}
