import { Check, ChevronRight, CircleSlash, LoaderCircle, ShieldQuestion, SquareTerminal, X } from 'lucide-react';
import { useLayoutEffect, useRef, useState } from 'react';
import { useApprovalsStore, useMachinesStore } from '../../services/services.js';
import { machineName } from '../../stores/machines-store.js';
import type { ConversationItem } from '../../stores/conversation-model.js';
import { stripAnsi } from '../../format/ansi.js';
import { formatDuration } from '../../format/usage.js';
import { ApprovalCard } from './approval-card.js';
import { DecidedByLine } from './decided-by-line.js';
import { decisionWords } from '../../format/decided-by.js';

type CommandItem = Extract<ConversationItem, { type: 'commandExecution' }>;

/** A command the agent ran (or wanted to run): live output while it runs, then exit status and duration. */
export function CommandCard({ item }: { readonly item: CommandItem }) {
  const approval = useApprovalsStore((s) => s.pending.find((p) => p.kind === 'command' && p.params.itemId === item.id));
  const [chosen, setChosen] = useState<boolean | null>(null);
  const running = item.status === 'inProgress';
  const open = chosen ?? (running || item.status === 'failed' || item.status === 'declined');
  const output = stripAnsi(item.aggregatedOutput ?? '');
  const status = approval ? 'waiting' : item.status;
  const machines = useMachinesStore((s) => s.list);
  const where = item.environmentId ? machineName(machines, item.environmentId) : null;
  return (
    <div className="command-card" data-testid="command-card" data-status={status} data-open={open || undefined}>
      <button type="button" className="command-head" aria-expanded={open} onClick={() => setChosen(!open)}>
        <SquareTerminal size={14} strokeWidth={1.9} className="command-icon" aria-hidden="true" />
        <code className="command-text" data-testid="command-text">
          {item.command}
        </code>
        {where && (
          <span className="command-where" data-testid="command-where" title={`Ran on ${where}, in ${item.cwd}`}>
            on {where}
          </span>
        )}
        <span className="command-status" data-testid="command-status">
          <StatusLabel item={item} waiting={Boolean(approval)} />
        </span>
        <ChevronRight size={14} strokeWidth={2} className="command-chevron" aria-hidden="true" />
      </button>
      {approval?.kind === 'command' && <ApprovalCard approval={approval} />}
      {(open || item.status === 'declined') && !approval && <DecidedByLine decidedBy={item.decidedBy} outcome={item.outcome} />}
      {open && (output.length > 0 || !approval) && <Output text={output} running={running} status={item.status} />}
    </div>
  );
}

function Output({ text, running, status }: { readonly text: string; readonly running: boolean; readonly status: CommandItem['status'] }) {
  const ref = useRef<HTMLPreElement>(null);
  // Follow the newest output while the command runs, unless the person scrolled up.
  useLayoutEffect(() => {
    const pre = ref.current;
    if (!pre || !running) return;
    if (pre.scrollHeight - pre.scrollTop - pre.clientHeight < 48) pre.scrollTop = pre.scrollHeight;
  }, [text, running]);
  const empty = running ? 'Running…' : status === 'declined' ? 'Not run.' : '(no output)';
  return (
    <pre ref={ref} className="command-output" data-testid="command-output">
      {text.length > 0 ? text : empty}
    </pre>
  );
}

function StatusLabel({ item, waiting }: { readonly item: CommandItem; readonly waiting: boolean }) {
  if (waiting) {
    return (
      <>
        <ShieldQuestion size={14} strokeWidth={2} aria-hidden="true" /> Needs approval
      </>
    );
  }
  const duration = item.durationMs !== null ? <span className="command-duration">{formatDuration(item.durationMs)}</span> : null;
  switch (item.status) {
    case 'inProgress':
      return (
        <>
          <LoaderCircle size={14} strokeWidth={2} className="spin" aria-hidden="true" /> Running
        </>
      );
    case 'completed':
      return (
        <>
          {duration}
          <Check size={14} strokeWidth={2.4} className="command-ok" aria-hidden="true" /> Done
        </>
      );
    case 'failed':
      return (
        <>
          {duration}
          <X size={14} strokeWidth={2.4} className="command-failed" aria-hidden="true" />
          {item.exitCode !== null ? `Failed (exit code ${item.exitCode})` : 'Failed'}
        </>
      );
    case 'declined':
      return (
        <>
          <CircleSlash size={14} strokeWidth={2} aria-hidden="true" /> {decisionWords({ decidedBy: item.decidedBy, outcome: item.outcome, waiting: false }).notRun}
        </>
      );
    default: {
      const unknown: never = item.status;
      return unknown;
    }
  }
}
