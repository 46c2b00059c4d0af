import { ShieldCheck, X } from 'lucide-react';
import { useEffect } from 'react';
import { useApprovalsStore, useConnectionStore } from '../../services/services.js';

/** What "Approve for this thread" allowed here: commands that run (and file changes that apply) without asking, each revocable. */
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
      {grants.map((grant) => {
        const files = grant.kind === 'fileChange';
        const label = files ? `file changes in ${grant.root ?? 'this folder'}` : grant.prefix.join(' ');
        return (
          <span key={files ? 'fileChange' : grant.prefix.join('\u0000')} className="session-grant" data-testid="session-grant" data-kind={grant.kind ?? 'command'}>
            <code>{label}</code>
            <button
              type="button"
              className="session-grant-revoke"
              aria-label={`Revoke: ask again before ${label}`}
              title="Revoke: ask again (also in Approvals)"
              onClick={() => void revoke(threadId, grant.prefix, grant.kind)}
            >
              <X size={12} strokeWidth={2.2} aria-hidden="true" />
            </button>
          </span>
        );
      })}
    </div>
  );
}
