import { useVirtualizer } from '@tanstack/react-virtual';
import { ArrowDown } from 'lucide-react';
import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useConversationStore } from '../../services/services.js';
import type { ConversationRow } from '../../stores/conversation-model.js';
import { ItemRow } from './message-rows.js';
import { TurnEnd } from './turn-end.js';

/** How close to the bottom still counts as "following" the conversation. */
const STICK_THRESHOLD_PX = 48;

/**
 * The conversation, virtualised: only rows near the viewport are in the DOM,
 * each measured as it renders (replies grow while they stream). It follows
 * the newest output while the reader is at the bottom and stays put once
 * they scroll up, offering a way back down.
 */
export function MessageList() {
  const rows = useConversationStore((s) => s.rows);
  const revision = useConversationStore((s) => s.revision);
  const followRequest = useConversationStore((s) => s.followRequest);
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const [atBottom, setAtBottom] = useState(true);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 88,
    overscan: 6,
    paddingStart: 28,
    paddingEnd: 28,
    getItemKey: (index) => rows[index]?.key ?? index,
  });
  const totalSize = virtualizer.getTotalSize();

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [totalSize, revision, rows.length]);

  // Sending a message brings the newest output back into view, wherever the reader was.
  const seenFollowRequest = useRef(followRequest);
  useEffect(() => {
    if (followRequest === seenFollowRequest.current) return;
    seenFollowRequest.current = followRequest;
    following.current = true;
    setAtBottom(true);
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [followRequest]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
    following.current = distance <= STICK_THRESHOLD_PX;
    setAtBottom(following.current);
  };

  const jumpToLatest = () => {
    following.current = true;
    setAtBottom(true);
    // An instant jump: a smooth scroll chasing a fast-growing reply fires scroll events short of the bottom, which would stop following.
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  };

  return (
    <div className="message-viewport">
      <div ref={scroller} className="message-scroller" data-testid="message-list" onScroll={onScroll}>
        <div className="message-canvas" style={{ height: totalSize }}>
          {virtualizer.getVirtualItems().map((virtual) => {
            const row = rows[virtual.index];
            if (!row) return null;
            return (
              <div
                key={virtual.key}
                ref={virtualizer.measureElement}
                data-index={virtual.index}
                className="message-row"
                data-kind={row.kind}
                style={{ transform: `translateY(${virtual.start}px)` }}
              >
                <div className="message-row-inner">
                  <Row row={row} />
                </div>
              </div>
            );
          })}
        </div>
      </div>
      {!atBottom && (
        <button type="button" className="jump-to-latest" data-testid="jump-to-latest" onClick={jumpToLatest}>
          <ArrowDown size={14} strokeWidth={2} aria-hidden="true" />
          Latest
        </button>
      )}
    </div>
  );
}

const Row = memo(function Row({ row }: { readonly row: ConversationRow }) {
  return row.kind === 'item' ? <ItemById id={row.itemId} /> : <TurnEndById id={row.turnId} />;
});

function ItemById({ id }: { readonly id: string }) {
  const item = useConversationStore((s) => s.data.items.get(id));
  return item ? <ItemRow item={item} /> : null;
}

function TurnEndById({ id }: { readonly id: string }) {
  const turn = useConversationStore((s) => s.data.turns.get(id));
  return turn ? <TurnEnd turn={turn} /> : null;
}
