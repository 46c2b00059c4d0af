import { ShieldCheck, X } from 'lucide-react';
import { useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import type { Thread } from '../../../../shared/protocol/thread.js';
import { folderName, threadTitle } from '../../format/thread-labels.js';
import { useApprovalsStore, useConnectionStore, useThreadsStore } from '../../services/services.js';
import { allGrants, mcpToolName, requestSummaryText, type PendingRequest } from '../../stores/approval-requests.js';
import { formatAge, formatDateTime, useNow } from '../common/relative-time.js';
import { RequestDecisions, RequestDetails } from './request-views.js';
import './approvals.css';

/** How long a "answered elsewhere" note stays. */
const NOTE_MS = 8000;

/**
 * The Approvals inbox (its own chunk): every request waiting for the person,
 * across threads and jobs, answerable one by one or in batches, and the
 * "approve for this thread" grants in force, each revocable.
 */
export function ApprovalsInbox() {
  const pending = useApprovalsStore((s) => s.pending);
  const selected = useApprovalsStore((s) => s.selected);
  const selectAll = useApprovalsStore((s) => s.selectAll);
  const answerMany = useApprovalsStore((s) => s.answerMany);
  const hide = useApprovalsStore((s) => s.hide);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const allChecked = pending.length > 0 && selected.size === pending.length;
  const someChecked = selected.size > 0 && !allChecked;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') hide();
  };
  return (
    <section className="approvals-inbox" data-testid="approvals-inbox" aria-labelledby="approvals-title" onKeyDown={onKeyDown}>
      <header className="approvals-header">
        <h1 className="approvals-title" id="approvals-title" tabIndex={-1} ref={heading}>
          Approvals
        </h1>
        <span className="approvals-count" data-testid="approvals-waiting">
          {pending.length === 0 ? 'nothing waiting' : `${pending.length} waiting`}
        </span>
        <button type="button" className="icon-button approvals-close" aria-label="Close Approvals" title="Close (Esc)" onClick={hide}>
          <X size={16} aria-hidden="true" />
        </button>
      </header>
      <div className="approvals-body">
        <ResolvedNotes />
        {pending.length === 0 ? (
          <p className="approvals-empty" data-testid="approvals-empty">
            Nothing waits for your approval. Requests from every thread and job show here as they arrive.
          </p>
        ) : (
          <>
            <div className="approvals-toolbar" role="toolbar" aria-label="Answer selected requests">
              <label className="approvals-select-all">
                <input
                  type="checkbox"
                  data-testid="approvals-select-all"
                  checked={allChecked}
                  ref={(input) => {
                    if (input) input.indeterminate = someChecked;
                  }}
                  onChange={(event) => selectAll(event.target.checked)}
                />
                Select all
              </label>
              <span className="approvals-selected-count" aria-live="polite">
                {selected.size} selected
              </span>
              <button
                type="button"
                className="button button-primary"
                data-testid="approvals-approve-selected"
                disabled={selected.size === 0}
                onClick={() => answerMany(selected, 'approve')}
              >
                Approve {selected.size > 0 ? selected.size : ''}
              </button>
              <button
                type="button"
                className="button button-secondary"
                data-testid="approvals-deny-selected"
                disabled={selected.size === 0}
                onClick={() => answerMany(selected, 'deny')}
              >
                Deny {selected.size > 0 ? selected.size : ''}
              </button>
              <span className="approvals-hint">Shift-click or Shift+Space selects a range · A / D approve or deny the focused row</span>
            </div>
            <ul className="approvals-list" aria-label="Waiting for your approval">
              {pending.map((request) => (
                <InboxRow key={request.requestId} request={request} checked={selected.has(request.requestId)} />
              ))}
            </ul>
          </>
        )}
        <GrantsSection />
      </div>
    </section>
  );
}

function InboxRow({ request, checked }: { readonly request: PendingRequest; readonly checked: boolean }) {
  const setSelected = useApprovalsStore((s) => s.setSelected);
  const answerMany = useApprovalsStore((s) => s.answerMany);
  const thread = useThreadsStore((s) => (request.threadId ? s.threads[request.threadId] : undefined));
  const select = useThreadsStore((s) => s.select);
  const hide = useApprovalsStore((s) => s.hide);
  const now = useNow();
  const title = thread ? threadTitle(thread) : request.threadId ? 'a thread not loaded here' : '';
  const summary = request.kind === 'command' ? (request.params.command ?? 'a command') : request.kind === 'fileChange' ? requestSummaryText(request) : request.kind === 'mcpTool' ? mcpToolName(request) : request.method;
  // Whether Shift was down when the click (or Space) began: it makes the change a range from the last row clicked.
  const shift = useRef(false);
  const remember = (event: MouseEvent | KeyboardEvent) => {
    shift.current = event.shiftKey;
  };
  // A / D approve or deny the row that has focus (as its inline card's keys do).
  const onRowKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const verdict = event.key.toLowerCase() === 'a' ? 'approve' : event.key.toLowerCase() === 'd' ? 'deny' : null;
    if (!verdict) return;
    event.preventDefault();
    answerMany([request.requestId], verdict);
  };
  return (
    <li
      className="inbox-row"
      data-testid="inbox-row"
      data-request-id={request.requestId}
      data-thread-id={request.threadId ?? ''}
      aria-keyshortcuts="A D"
      onKeyDown={onRowKeyDown}
    >
      <input
        type="checkbox"
        className="inbox-row-check"
        data-testid="inbox-row-check"
        aria-label={`Select: ${summary}${title ? ` (thread ${title})` : ''}`}
        checked={checked}
        onMouseDown={remember}
        onKeyDown={remember}
        onChange={(event) => setSelected(request.requestId, event.target.checked, shift.current)}
      />
      <div className="inbox-row-main">
        <div className="inbox-row-origin">
          <Origin request={request} thread={thread} title={title} />
          <time className="inbox-row-time" dateTime={new Date(request.receivedAtMs).toISOString()} title={formatDateTime(Math.floor(request.receivedAtMs / 1000))}>
            {formatAge(Math.floor(request.receivedAtMs / 1000), now)}
          </time>
          {request.threadId && (
            <button type="button" className="button button-secondary inbox-open-thread" aria-label={`Open thread ${title}`} onClick={() => (select(request.threadId), hide())}>
              Open thread
            </button>
          )}
        </div>
        <RequestDetails request={request} />
        <RequestDecisions request={request} threadTitle={title || 'this thread'} />
      </div>
    </li>
  );
}

/** Which thread (and folder) or job a request comes from. */
function Origin({ request, thread, title }: { readonly request: PendingRequest; readonly thread: Thread | undefined; readonly title: string }) {
  if (request.threadId) {
    return (
      <span className="inbox-row-thread">
        Thread <strong>‘{title}’</strong>
        {thread && (
          <span className="inbox-row-folder" title={thread.cwd}>
            {' '}
            in {folderName(thread.cwd)}
          </span>
        )}
      </span>
    );
  }
  if ((request.kind === 'command' || request.kind === 'other') && request.jobId) {
    return (
      <span className="inbox-row-thread">
        Job <strong>{request.jobId}</strong>
      </span>
    );
  }
  return <span className="inbox-row-thread">Not tied to a thread</span>;
}

/** Rows that left because another window answered them (or their turn stopped): said briefly, never as an error. */
function ResolvedNotes() {
  const notes = useApprovalsStore((s) => s.notes);
  const dismiss = useApprovalsStore((s) => s.dismissNote);
  const threads = useThreadsStore((s) => s.threads);
  useEffect(() => {
    if (notes.length === 0) return;
    const timer = setTimeout(() => dismiss(notes[0]!.requestId), NOTE_MS);
    return () => clearTimeout(timer);
  }, [notes, dismiss]);
  return (
    <div className="approvals-notes" role="status" aria-live="polite" data-testid="approvals-notes">
      {notes.map((note) => {
        const thread = note.threadId ? threads[note.threadId] : undefined;
        return (
          <p key={note.requestId} className="approvals-note" data-testid="approvals-note">
            <span>
              <code>{note.summary}</code>
              {thread ? ` in ‘${threadTitle(thread)}’` : ''} no longer waits: answered in another window, or its turn stopped.
            </span>
            <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => dismiss(note.requestId)}>
              <X size={13} aria-hidden="true" />
            </button>
          </p>
        );
      })}
    </div>
  );
}

/** "Approve for this thread" grants of every thread, each revocable. */
function GrantsSection() {
  const grantsByThread = useApprovalsStore((s) => s.grants);
  const loadAll = useApprovalsStore((s) => s.loadAllGrants);
  const revoke = useApprovalsStore((s) => s.revokeGrant);
  const threads = useThreadsStore((s) => s.threads);
  const connected = useConnectionStore((s) => s.status === 'connected');
  useEffect(() => {
    if (connected) void loadAll();
  }, [connected, loadAll]);
  const grants = useMemo(() => allGrants(grantsByThread), [grantsByThread]);
  return (
    <section className="approvals-grants" aria-labelledby="approvals-grants-title" data-testid="approvals-grants">
      <h2 className="approvals-grants-title" id="approvals-grants-title">
        <ShieldCheck size={14} aria-hidden="true" /> Approved for a thread
      </h2>
      {grants.length === 0 ? (
        <p className="approvals-grants-empty">None. “Approve for this thread” lets a command’s kind run without asking in that thread until Wheelhouse restarts.</p>
      ) : (
        <ul className="approvals-grant-list">
          {grants.map((grant) => {
            const thread = threads[grant.threadId];
            const name = thread ? threadTitle(thread) : 'a thread not loaded here';
            const files = grant.kind === 'fileChange';
            const words = files ? `file changes in ${grant.root ?? 'its folder'}` : grant.prefix.join(' ');
            return (
              <li key={`${grant.threadId}\u0000${files ? 'fileChange' : grant.prefix.join('\u0000')}`} className="approvals-grant" data-testid="inbox-grant">
                <span>
                  {files ? 'Patches inside' : 'Commands starting with'} <code>{files ? (grant.root ?? 'its folder') : words}</code> in thread ‘{name}’, until Wheelhouse restarts
                </span>
                <button
                  type="button"
                  className="button button-secondary"
                  aria-label={`Revoke: ask again before ${words} in thread ${name}`}
                  onClick={() => void revoke(grant.threadId, grant.prefix, grant.kind)}
                >
                  Revoke
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
