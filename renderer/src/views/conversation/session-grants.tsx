import { ShieldCheck, X } from 'lucide-react';
import { useEffect } from 'react';
import { useApprovalsStore, useConnectionStore } from '../../services.js';

/** What "Approve for this thread" allowed here: commands that run without asking, each revocable. */
export function SessionGrants({ threadId }: { readonly threadId: string }) {
  const grants = useApprovalsStore((s) => s.grants[threadId]);
  const loadGrants = useApprovalsStore((s) => s.loadGrants);
  const revoke = useApprovalsStore((s) => s.revokeGrant);
  const connected = useConnectionStore((s) => s.status === 'connected');
  useEffect(() => {
    if (connected) void loadGrants(threadId);
  }, [connected, loadGrants, threadId]);
  if (!grants || grants.length === 0) return null;
  return (
    <div className="session-grants" data-testid="session-grants" aria-label="Approved for this thread">
      <ShieldCheck size={13} strokeWidth={2} aria-hidden="true" />
      <span className="session-grants-label">Runs without asking in this thread until Wheelhouse restarts:</span>
      {grants.map((grant) => (
        <span key={grant.prefix.join('\u0000')} className="session-grant" data-testid="session-grant">
          <code>{grant.prefix.join(' ')}</code>
          <button
            type="button"
            className="session-grant-revoke"
            aria-label={`Revoke: ask again before ${grant.prefix.join(' ')}`}
            title="Revoke: ask again (also in Approvals)"
            onClick={() => void revoke(threadId, grant.prefix)}
          >
            <X size={12} strokeWidth={2.2} aria-hidden="true" />
          </button>
        </span>
      ))}
    </div>
  );
}
