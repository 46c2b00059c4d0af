import { version } from '../../../package.json';
import { bridgeTransport, findBridge } from './bridge-transport.js';
import { takeSessionToken } from './session-token.js';
import { openWebSocketTransport } from './websocket-transport.js';
import { WheelhouseClient } from './wheelhouse-client.js';

/** Path of the runtime's protocol WebSocket (served by `wheelhouse serve`). */
const RPC_PATH = '/rpc';

/**
 * Builds the client for wherever the renderer runs: the Electron preload
 * bridge when present, otherwise a WebSocket back to the server that served
 * this page, authenticated with the token from the URL.
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
  const token = takeSessionToken(target.location, target.sessionStorage, target.history);
  const url = `ws://${target.location.host}${RPC_PATH}?token=${encodeURIComponent(token ?? '')}`;
  return new WheelhouseClient({
    connector: () => openWebSocketTransport(url),
    reconnect: true,
    clientVersion: version,
    ...(token
      ? {}
      : { fatalError: 'No access token. Open the link printed by `wheelhouse serve` (it ends in #token=…).' }),
  });
}
