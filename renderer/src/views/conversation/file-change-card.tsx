import { ArrowRight, Check, ChevronRight, CircleSlash, FileDiff, LoaderCircle, ShieldQuestion, X } from 'lucide-react';
import { useState } from 'react';
import type { FileUpdateChange } from '../../../../shared/protocol/file-change.js';
import { diffLines, diffStat, displayPath, patchTargets, patchText } from '../../format/file-diff.js';
import { useApprovalsStore, useMachinesStore, useThreadsStore } from '../../services/services.js';
import { machineName } from '../../stores/machines-store.js';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { FileChangeApprovalCard } from './file-change-approval.js';
import { DecidedByLine } from './decided-by-line.js';
import { decisionWords } from '../../format/decided-by.js';

type FileChangeItem = Extract<ConversationItem, { type: 'fileChange' }>;

const KIND_LABEL = { add: 'Added', delete: 'Deleted', update: 'Edited' } as const;

/**
 * A patch the agent applied (or wants to): every file with its kind and a
 * coloured unified diff — shown before the person decides, and after, what
 * was written. A declined or failed patch says so and why.
 */
export function FileChangeCard({ item }: { readonly item: FileChangeItem }) {
  const approval = useApprovalsStore((s) => s.pending.find((p) => p.kind === 'fileChange' && p.params.itemId === item.id));
  const machines = useMachinesStore((s) => s.list);
  const where = item.environmentId ? machineName(machines, item.environmentId) : null;
  // Paths are shown relative to the folder they are in: the thread's folder here, or the one on its machine.
  const folder = useThreadsStore((s) => {
    const thread = s.selectedId ? s.threads[s.selectedId] : undefined;
    if (!item.environmentId) return thread?.cwd ?? null;
    return thread?.environments.find((environment) => environment.environmentId === item.environmentId)?.cwd ?? null;
  });
  const [chosen, setChosen] = useState<boolean | null>(null);
  const waiting = Boolean(approval);
  const open = chosen ?? (waiting || item.status !== 'completed' || item.changes.length <= 3);
  const status = waiting ? 'waiting' : item.status;
  const notRun = item.status === 'declined' ? decisionWords({ decidedBy: null, outcome: item.outcome, waiting: false }).notRun : null;
  return (
    <div className="command-card file-change-card" data-testid="file-change-card" data-status={status} data-open={open || undefined}>
      <button type="button" className="command-head" aria-expanded={open} onClick={() => setChosen(!open)}>
        <FileDiff size={14} strokeWidth={1.9} className="command-icon" aria-hidden="true" />
        <span className="command-text file-change-summary" data-testid="file-change-summary">
          {summaryText(item, folder)}
        </span>
        {where && (
          <span className="command-where" data-testid="file-change-where" title={`Files on ${where}`}>
            on {where}
          </span>
        )}
        <span className="command-status" data-testid="file-change-status">
          <StatusLabel status={item.status} waiting={waiting} notRun={notRun} />
        </span>
        <ChevronRight size={14} strokeWidth={2} className="command-chevron" aria-hidden="true" />
      </button>
      {open && item.changes.map((change) => <FileDiffView key={change.path} change={change} folder={folder} />)}
      {where && open && (
        <p className="file-change-elsewhere" data-testid="file-change-no-undo">
          These files are on {where}. Wheelhouse keeps no checkpoint there, so Undo and the thread’s changes do not cover them: use git there to go back.
        </p>
      )}
      {!waiting && item.outcome && <DecidedByLine decidedBy={null} outcome={item.outcome} />}
      {item.status === 'failed' && (
        <div className="file-change-problem" data-testid="file-change-problem">
          <p>{failureForPerson(item.modelOutput)}</p>
          {item.modelOutput && (
            <details className="decided-by-details">
              <summary>What the agent was told</summary>
              <pre className="file-change-told">{item.modelOutput}</pre>
            </details>
          )}
        </div>
      )}
      {open && item.status === 'failed' && item.changes.length === 0 && <SentPatch text={patchText(item.arguments)} />}
      {approval?.kind === 'fileChange' && <FileChangeApprovalCard approval={approval} folder={folder} />}
    </div>
  );
}

/**
 * What a failed patch means for the person: the first sentence of what the
 * runtime said when it speaks of the files ("Not applied; no file was
 * changed.", "Wheelhouse stopped while …"); the rest, meant for the model, stays in the details.
 */
function failureForPerson(modelOutput: string | null): string {
  if (modelOutput && /^(Not applied\b|Partly applied\b|Wheelhouse stopped\b)/.test(modelOutput)) return /^.*?\.(?=\s|$)/.exec(modelOutput)?.[0] ?? modelOutput;
  return 'The agent’s change could not be read, so no file was changed.';
}

function summaryText(item: FileChangeItem, folder: string | null): string {
  const changes = item.changes;
  if (changes.length === 0) {
    const targets = patchTargets(item.arguments);
    return targets.length === 0 ? 'Patch' : `Patch to ${targets.join(', ')}`;
  }
  if (changes.length === 1) {
    const only = changes[0]!;
    const movedTo = only.kind.type === 'update' ? only.kind.move_path : null;
    if (movedTo) return `Moved ${displayPath(only.path, folder)} → ${displayPath(movedTo, folder)}`;
    return `${KIND_LABEL[only.kind.type]} ${displayPath(only.path, folder)}`;
  }
  return `Changed ${changes.length} files`;
}

function FileDiffView({ change, folder }: { readonly change: FileUpdateChange; readonly folder: string | null }) {
  const lines = diffLines(change);
  const stat = diffStat(change);
  const movedTo = change.kind.type === 'update' ? change.kind.move_path : null;
  return (
    <section className="file-diff" data-testid="file-diff" data-kind={movedTo ? 'move' : change.kind.type} aria-label={`${KIND_LABEL[change.kind.type]} ${displayPath(change.path, folder)}`}>
      <header className="file-diff-head">
        <span className="file-diff-kind" data-kind={movedTo ? 'move' : change.kind.type}>
          {movedTo ? 'Moved' : KIND_LABEL[change.kind.type]}
        </span>
        <code className="file-diff-path" data-testid="file-diff-path">
          {displayPath(change.path, folder)}
          {movedTo && (
            <>
              <ArrowRight size={12} strokeWidth={2} aria-label="to" />
              {displayPath(movedTo, folder)}
            </>
          )}
        </code>
        <span className="file-diff-stat">
          <span className="file-diff-added">+{stat.added}</span> <span className="file-diff-removed">−{stat.removed}</span>
        </span>
      </header>
      {lines.length > 0 && (
        <div className="file-diff-body" role="table" aria-label="Diff">
          {lines.map((line, index) => (
            <div key={index} className="file-diff-line" data-line={line.kind} role="row">
              <span className="file-diff-number" aria-hidden="true">{line.oldNumber ?? ''}</span>
              <span className="file-diff-number" aria-hidden="true">{line.newNumber ?? ''}</span>
              <span className="file-diff-sign" aria-hidden="true">{line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ''}</span>
              <span className="file-diff-text" role="cell">
                {line.kind === 'added' ? <span className="visually-hidden">added: </span> : line.kind === 'removed' ? <span className="visually-hidden">removed: </span> : null}
                {line.text}
              </span>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** The patch as the model sent it, when it never got as far as a diff. */
function SentPatch({ text }: { readonly text: string | null }) {
  if (!text) return null;
  return (
    <pre className="command-output" data-testid="file-change-patch" aria-label="The patch the agent sent">
      {text}
    </pre>
  );
}

function StatusLabel({ status, waiting, notRun }: { readonly status: FileChangeItem['status']; readonly waiting: boolean; readonly notRun: string | null }) {
  if (waiting) {
    return (
      <>
        <ShieldQuestion size={14} strokeWidth={2} aria-hidden="true" /> Needs approval
      </>
    );
  }
  switch (status) {
    case 'inProgress':
      return (
        <>
          <LoaderCircle size={14} strokeWidth={2} className="spin" aria-hidden="true" /> Applying
        </>
      );
    case 'completed':
      return (
        <>
          <Check size={14} strokeWidth={2.4} className="command-ok" aria-hidden="true" /> Applied
        </>
      );
    case 'failed':
      return (
        <>
          <X size={14} strokeWidth={2.4} className="command-failed" aria-hidden="true" /> Not applied
        </>
      );
    case 'declined':
      return (
        <>
          <CircleSlash size={14} strokeWidth={2} aria-hidden="true" /> {notRun === 'Not run' ? 'Not applied' : notRun}
        </>
      );
    default: {
      const unknown: never = status;
      return unknown;
    }
  }
}
