import { version } from '../../../package.json';
import { AccessError } from './access-problem.js';
import { bridgeTransport, findBridge } from './bridge-transport.js';
import { takeSessionToken, watchSessionToken } from './session-token.js';
import { openWebSocketTransport, type ClosableTransport } from './websocket-transport.js';
import { WheelhouseClient } from './wheelhouse-client.js';

/** Path of the runtime's protocol WebSocket (served by `wheelhouse serve`). */
const RPC_PATH = '/rpc';

/**
 * Builds the client for wherever the renderer runs: the Electron preload
 * bridge when present, otherwise a WebSocket back to the server that served
 * this page, authenticated with the token from the URL. A new link pasted
 * into the tab (a changed `#token=`) reconnects at once.
 */
export function createWheelhouseClient(target: Window = window): WheelhouseClient {
  const bridge = findBridge(target);
  if (bridge) {
    return new WheelhouseClient({
      connector: () => Promise.resolve(bridgeTransport(bridge)),
      reconnect: false,
      clientVersion: version,
    });
  }
  let token = takeSessionToken(target.location, target.sessionStorage, target.history);
  const client = new WheelhouseClient({
    connector: () => connectWithToken(target, token),
    reconnect: true,
    clientVersion: version,
  });
  watchSessionToken(target, (next) => {
    token = next;
    client.reconnectNow();
  });
  return client;
}

async function connectWithToken(target: Window, token: string | null): Promise<ClosableTransport> {
  if (!token) throw new AccessError('no-token');
  const query = `token=${encodeURIComponent(token)}`;
  try {
    return await openWebSocketTransport(`ws://${target.location.host}${RPC_PATH}?${query}`);
  } catch (error) {
    // The browser hides why an upgrade failed; the same path over plain HTTP answers 401 for a refused token.
    const refused = await target
      .fetch(`${RPC_PATH}?${query}`, { cache: 'no-store' })
      .then((response) => response.status === 401)
      .catch(() => false);
    if (refused) throw new AccessError('token-refused');
    throw error;
  }
}
