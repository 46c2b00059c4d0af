import { CircleAlert, GripVertical, Pencil, X } from 'lucide-react';
import { useEffect, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import type { QueuedTurn } from '../../../../shared/protocol/methods/queue.js';
import { useConnectionStore, useQueueStore } from '../../services/services.js';
import { queuedText } from '../../stores/queue-store.js';
import './queue.css';

const NO_ROWS: readonly QueuedTurn[] = [];

/**
 * The thread's queued messages, under the composer: they start one by one,
 * top first, whenever the agent is idle. Drag a card (or focus its handle and
 * press ↑/↓) to change the order; edit or delete any card that has not started.
 */
export function QueuePanel({ threadId }: { readonly threadId: string }) {
  const rows = useQueueStore((s) => s.queues[threadId] ?? NO_ROWS);
  const load = useQueueStore((s) => s.load);
  const move = useQueueStore((s) => s.move);
  const connected = useConnectionStore((s) => s.status === 'connected');
  const [dragging, setDragging] = useState<string | null>(null);
  const [dropIndex, setDropIndex] = useState<number | null>(null);

  useEffect(() => {
    if (connected) void load(threadId);
  }, [connected, load, threadId]);

  if (rows.length === 0) return null;
  const blocked = rows[0]?.status.type === 'failed';

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    if (dragging !== null && dropIndex !== null) void move(threadId, dragging, dropIndex);
    setDragging(null);
    setDropIndex(null);
  };

  return (
    <section className="queue" data-testid="queue-panel" aria-label="Queued messages">
      <header className="queue-header">
        <span className="queue-title">Queued · {rows.length}</span>
        <span className="queue-note">
          {blocked ? 'Waiting: the first message could not start.' : 'Sent one at a time when the agent is free. Drag or use ↑/↓ on a handle to reorder.'}
        </span>
      </header>
      <ol className="queue-list" onDragOver={(e) => e.preventDefault()} onDrop={onDrop}>
        {rows.map((row, index) => (
          <QueueCard
            key={row.id}
            threadId={threadId}
            row={row}
            index={index}
            count={rows.length}
            dragging={dragging === row.id}
            dropTarget={dragging !== null && dragging !== row.id && dropIndex === index}
            onDragStart={() => setDragging(row.id)}
            onDragOverCard={() => setDropIndex(index)}
            onDragEnd={() => {
              setDragging(null);
              setDropIndex(null);
            }}
          />
        ))}
      </ol>
    </section>
  );
}

interface QueueCardProps {
  readonly threadId: string;
  readonly row: QueuedTurn;
  readonly index: number;
  readonly count: number;
  readonly dragging: boolean;
  readonly dropTarget: boolean;
  onDragStart(): void;
  onDragOverCard(): void;
  onDragEnd(): void;
}

function QueueCard({ threadId, row, index, count, dragging, dropTarget, onDragStart, onDragOverCard, onDragEnd }: QueueCardProps) {
  const move = useQueueStore((s) => s.move);
  const remove = useQueueStore((s) => s.remove);
  const [editing, setEditing] = useState(false);
  const handle = useRef<HTMLButtonElement>(null);
  const failed = row.status.type === 'failed' ? row.status.error : null;
  const text = queuedText(row);

  const onHandleKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    const delta = event.key === 'ArrowUp' ? -1 : event.key === 'ArrowDown' ? 1 : 0;
    if (delta === 0) return;
    event.preventDefault();
    const to = index + delta;
    if (to < 0 || to >= count) return;
    void move(threadId, row.id, to).then(() => {
      // The card re-renders at its new place; keep the keyboard on it.
      document.querySelector<HTMLButtonElement>(`[data-queued-id="${row.id}"] .queue-handle`)?.focus();
    });
  };

  return (
    <li
      className="queue-card"
      data-testid="queue-card"
      data-queued-id={row.id}
      data-status={row.status.type}
      data-dragging={dragging || undefined}
      data-drop-target={dropTarget || undefined}
      draggable={!editing}
      onDragStart={(event) => {
        event.dataTransfer.effectAllowed = 'move';
        event.dataTransfer.setData('text/plain', row.id);
        onDragStart();
      }}
      onDragOver={(event) => {
        event.preventDefault();
        onDragOverCard();
      }}
      onDragEnd={onDragEnd}
    >
      <button
        type="button"
        ref={handle}
        className="queue-handle"
        aria-label={`Move message ${index + 1} of ${count}; use the up and down arrow keys`}
        title="Drag, or press ↑/↓, to reorder"
        onKeyDown={onHandleKey}
      >
        <GripVertical size={14} strokeWidth={2} aria-hidden="true" />
      </button>
      <div className="queue-body">
        {editing ? (
          <QueueEditor threadId={threadId} row={row} onDone={() => setEditing(false)} />
        ) : (
          <p className="queue-text" data-testid="queue-text" title={text}>
            {text}
          </p>
        )}
        {failed ? (
          <div className="queue-failure" role="alert" data-testid="queue-failure">
            <CircleAlert size={13} strokeWidth={2} aria-hidden="true" />
            <span>
              This message did not start ({failed.message.replace(/^queued turn could not start: /, '')}). The messages
              below wait until you delete it.
            </span>
            <button type="button" className="queue-failure-delete" onClick={() => void remove(threadId, row.id)}>
              Delete
            </button>
          </div>
        ) : (
          <span className="queue-status">{index === 0 ? 'Next' : `#${index + 1}`}</span>
        )}
      </div>
      {!editing && (
        <div className="queue-actions">
          <button type="button" className="queue-action" aria-label="Edit queued message" title="Edit" onClick={() => setEditing(true)}>
            <Pencil size={13} strokeWidth={2} aria-hidden="true" />
          </button>
          <button
            type="button"
            className="queue-action"
            data-testid="queue-delete"
            aria-label="Delete queued message"
            title="Delete"
            onClick={() => void remove(threadId, row.id)}
          >
            <X size={14} strokeWidth={2} aria-hidden="true" />
          </button>
        </div>
      )}
    </li>
  );
}

function QueueEditor({ threadId, row, onDone }: { readonly threadId: string; readonly row: QueuedTurn; onDone(): void }) {
  const edit = useQueueStore((s) => s.edit);
  const [text, setText] = useState(() => queuedText(row));
  const [saving, setSaving] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);

  const save = async () => {
    if (text.trim().length === 0 || saving) return;
    setSaving(true);
    const saved = await edit(threadId, row.id, text);
    setSaving(false);
    if (saved) onDone();
  };

  return (
    <textarea
      ref={area}
      className="queue-editor"
      aria-label="Edit queued message (Enter saves, Escape cancels)"
      value={text}
      rows={2}
      disabled={saving}
      onChange={(event) => setText(event.target.value)}
      onBlur={() => {
        if (!saving) onDone();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
          event.preventDefault();
          void save();
        } else if (event.key === 'Escape') {
          event.preventDefault();
          onDone();
        }
      }}
    />
  );
}
