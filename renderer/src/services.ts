import { createWheelhouseClient } from './client/create-client.js';
import { createConnectionStore } from './stores/connection-store.js';
import { createThreadsStore } from './stores/threads-store.js';

/** The window's one runtime client; stores talk through it, views never do. */
export const client = createWheelhouseClient(window);

/** Connection status for the footer indicator. */
export const useConnectionStore = createConnectionStore(client);

/** Threads for the sidebar and the conversation pane. */
export const useThreadsStore = createThreadsStore(client, window.sessionStorage);
