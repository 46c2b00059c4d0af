import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { config as configureZod } from 'zod';
import { loadedMarkdown, loadMarkdown } from './markdown/lazy-markdown.js';
import { client } from './services/services.js';
import './styles/theme.css';
import './styles/base.css';
import { ViewLoadError } from './views/common/lazy-view.js';
import { AppShell } from './views/shell/app-shell.js';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// The CSP forbids eval; without this zod probes `Function('')` and the page logs a policy violation.
configureZod({ jitless: true });
client.start();
// Markdown (markdown-it, highlight.js) is its own chunk: fetched alongside the first paint, not before it.
// Replies show as plain text until it lands; if the server was away, it is fetched again once it is back.
const fetchMarkdown = () =>
  void loadMarkdown().catch((error: unknown) => console.warn('wheelhouse: the Markdown renderer did not load (yet):', error));
fetchMarkdown();
client.onReady(() => {
  if (!loadedMarkdown()) fetchMarkdown();
});
window.addEventListener('online', () => client.retryNow());

createRoot(container, {
  // A view whose chunk did not arrive says so in the window and loads again by itself: not an error to report twice.
  onCaughtError: (error, info) => {
    if (error instanceof ViewLoadError) console.warn(`wheelhouse: ${error.message}`);
    else console.error(error, info.componentStack);
  },
}).render(
  <StrictMode>
    <AppShell />
  </StrictMode>,
);
