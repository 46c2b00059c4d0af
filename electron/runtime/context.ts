import type { ClientInfo } from '../../shared/protocol/index.js';

/** Per-connection state a handler may read or change. */
export interface ConnectionSession {
  readonly connectionId: string;
  /** Which carrier the client came through. */
  readonly carrier: 'ipc' | 'stdio' | 'websocket' | 'http' | 'in-process';
  clientInfo: ClientInfo | null;
  /** Notification methods this client asked not to receive. */
  optOut: ReadonlySet<string>;
}

/** What every handler receives besides its params. */
export interface RequestContext {
  readonly session: ConnectionSession;
}
