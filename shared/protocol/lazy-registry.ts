import type { clientMethods, serverRequests } from './registry.js';

/**
 * The protocol's tables (registry.ts), built on first use. Importing them
 * builds every method's, notification's and server request's schemas (zod and
 * a few hundred objects), the larger part of start-up's CPU; a server answers
 * `initialize` with that one method's schema and builds the rest after it
 * (docs/startup.md). Types still come from registry.ts: nothing is declared twice.
 */
export interface ProtocolTables {
  readonly clientMethods: typeof clientMethods;
  readonly serverRequests: typeof serverRequests;
}

let built: ProtocolTables | null = null;
let loading: Promise<ProtocolTables> | null = null;

/** registry.ts hands its tables over as it is evaluated, however it was imported. */
export function tablesBuilt(tables: ProtocolTables): void {
  built = tables;
}

/** The tables if they are built already, else null. */
export function builtTables(): ProtocolTables | null {
  return built;
}

/** Builds the tables on the first call; later calls get the same ones. */
export function loadTables(): Promise<ProtocolTables> {
  if (built) return Promise.resolve(built);
  return (loading ??= import('./registry.js').then(({ clientMethods, serverRequests }) => ({ clientMethods, serverRequests })));
}
