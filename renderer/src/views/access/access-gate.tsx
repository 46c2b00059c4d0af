import { KeyRound } from 'lucide-react';
import { useConnectionStore } from '../../services/services.js';
import './access-gate.css';

/**
 * Full-page guidance when this browser page cannot be let in: it has no
 * access token, or the server refuses the one it has. Pasting the printed link
 * into this tab connects at once (the page watches `#token=`).
 */
export function AccessGate() {
  const problem = useConnectionStore((s) => s.problem);
  if (problem === null) return null;
  const refused = problem === 'token-refused';
  return (
    <div className="access-gate" data-testid="access-gate" data-problem={problem}>
      <section className="access-card" role="alertdialog" aria-modal="true" aria-labelledby="access-title" aria-describedby="access-text">
        <KeyRound size={28} strokeWidth={1.75} className="access-icon" aria-hidden="true" />
        <h1 id="access-title" className="access-title">
          {refused ? 'This link no longer opens Wheelhouse' : 'Open Wheelhouse from its link'}
        </h1>
        <div id="access-text" className="access-text">
          {refused ? (
            <p>
              The runtime is running but refused this page’s access token. It was probably restarted with a new
              token (<code>--rotate-token</code>).
            </p>
          ) : (
            <p>This page needs the access link that the runtime printed when it started.</p>
          )}
          <ol className="access-steps">
            <li>
              Find the terminal where <code>wheelhouse serve</code> runs (start it there if it is not running).
            </li>
            <li>
              Copy the line <code>Wheelhouse is running at http://127.0.0.1:…/#token=…</code>
            </li>
            <li>Paste that link into this tab’s address bar. The page connects as soon as it has the token.</li>
          </ol>
        </div>
      </section>
    </div>
  );
}
