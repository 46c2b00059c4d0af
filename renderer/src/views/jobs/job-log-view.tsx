import { memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type Ref } from 'react';
import { useStore } from 'zustand';
import { logLineSpans, markMatches, xtermColor, type LogColor, type LogSpan } from '../../format/log-line.js';
import { LOG_PAGE_LINES, type JobLogSource } from '../../stores/job-log-store.js';

/** Height of one line in px (the CSS line-height of `.log-line`). */
export const LOG_ROW_HEIGHT = 18;
/**
 * Tallest scroll area used. Chromium lays out nothing taller than ~33.5 million px
 * (1.8 million lines); a longer log maps its lines onto this height and moves
 * by lines on the wheel and keys, so every line stays reachable.
 */
const MAX_SCROLL_HEIGHT = 24_000_000;
/** Lines drawn above and below the window. */
const OVERSCAN = 20;

export interface JobLogViewHandle {
  /** Puts line `index` in the middle of the view (and stops following). */
  showLine(index: number): void;
  /** Goes to the last line and follows new output again. */
  followEnd(): void;
}

interface Props {
  readonly source: JobLogSource;
  readonly label: string;
  /** Text marked in every line shown (the search); empty for none. */
  readonly query: string;
  /** The line of the current search match, drawn stronger. */
  readonly currentLine: number | null;
  readonly following: boolean;
  readonly onFollowingChange: (following: boolean) => void;
  /** Told the first line on screen as it changes (a new search starts from there). */
  readonly onTopLine?: (line: number) => void;
  readonly handle: Ref<JobLogViewHandle>;
}

/**
 * One attempt's output as a window of fixed-height lines over the whole log:
 * only the lines on screen (and a margin) exist in the page, fetched by
 * number as they come into view; it follows new output while it sits at the
 * end and stops when the person scrolls up.
 */
export function JobLogView({ source, label, query, currentLine, following, onFollowingChange, onTopLine, handle }: Props) {
  const lineCount = useStore(source.store, (s) => s.lineCount);
  // Rows read fetched lines from the source; a new version draws them.
  useStore(source.store, (s) => s.version);
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  /** Where the window starts in the log's own px (line × row height); differs from scrollTop only when scaled. */
  const topPx = useRef(0);
  /** The scrollTop this view set itself last (its scroll event is not the person's). */
  const ownScroll = useRef<number | null>(null);

  const natural = lineCount * LOG_ROW_HEIGHT;
  const total = Math.min(natural, MAX_SCROLL_HEIGHT);
  const scaled = natural > total;
  const maxScroll = Math.max(0, total - viewport);
  const naturalMax = Math.max(0, natural - viewport);
  if (!scaled) topPx.current = scrollTop;

  const scrollToPx = useCallback(
    (px: number) => {
      const element = scroller.current;
      if (!element) return;
      topPx.current = Math.min(naturalMax, Math.max(0, px));
      const top = scaled && naturalMax > 0 ? Math.round((topPx.current * maxScroll) / naturalMax) : topPx.current;
      ownScroll.current = top;
      element.scrollTop = top;
      setScrollTop(element.scrollTop);
    },
    [naturalMax, maxScroll, scaled],
  );

  useImperativeHandle(
    handle,
    () => ({
      showLine: (index) => {
        onFollowingChange(false);
        scrollToPx(index * LOG_ROW_HEIGHT - viewport / 2 + LOG_ROW_HEIGHT / 2);
      },
      followEnd: () => {
        onFollowingChange(true);
        scrollToPx(naturalMax);
      },
    }),
    [scrollToPx, viewport, naturalMax, onFollowingChange],
  );

  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    setViewport(element.clientHeight);
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Following: every new line (and a resize) keeps the last one in view.
  useLayoutEffect(() => {
    if (following) scrollToPx(naturalMax);
  }, [following, naturalMax, scrollToPx]);

  useEffect(() => {
    source.setFollowing(following);
  }, [source, following]);

  const onScroll = () => {
    const element = scroller.current;
    if (!element) return;
    const top = element.scrollTop;
    const mine = ownScroll.current !== null && Math.abs(top - ownScroll.current) < 1;
    ownScroll.current = null;
    if (scaled && !mine) topPx.current = maxScroll > 0 ? (top * naturalMax) / maxScroll : 0;
    setScrollTop(top);
    // Only the person's scrolling changes following: away from the end stops it, back to the end resumes it.
    if (!mine) {
      const atEnd = top >= maxScroll - 2;
      if (atEnd !== following) onFollowingChange(atEnd);
    }
  };

  // A scaled log moves by lines on the wheel and keys, not by its (compressed) pixels.
  useEffect(() => {
    const element = scroller.current;
    if (!element || !scaled) return;
    const wheel = (event: WheelEvent) => {
      if (event.deltaY === 0 || event.ctrlKey) return;
      event.preventDefault();
      const step = event.deltaMode === 1 ? event.deltaY * LOG_ROW_HEIGHT : event.deltaMode === 2 ? event.deltaY * element.clientHeight : event.deltaY;
      scrollToPx(topPx.current + step);
      onFollowingChange(topPx.current >= naturalMax - 1);
    };
    element.addEventListener('wheel', wheel, { passive: false });
    return () => element.removeEventListener('wheel', wheel);
  }, [scaled, scrollToPx, naturalMax, onFollowingChange]);

  const onKeyDown = (event: React.KeyboardEvent) => {
    const page = Math.max(LOG_ROW_HEIGHT, viewport - LOG_ROW_HEIGHT);
    const moves: Record<string, number> = { ArrowDown: LOG_ROW_HEIGHT, ArrowUp: -LOG_ROW_HEIGHT, PageDown: page, PageUp: -page, ' ': event.shiftKey ? -page : page };
    if (event.key === 'End') {
      event.preventDefault();
      onFollowingChange(true);
      scrollToPx(naturalMax);
    } else if (event.key === 'Home') {
      event.preventDefault();
      onFollowingChange(false);
      scrollToPx(0);
    } else if (scaled && moves[event.key] !== undefined) {
      event.preventDefault();
      scrollToPx(topPx.current + moves[event.key]!);
      onFollowingChange(topPx.current >= naturalMax - 1);
    }
  };

  const first = Math.floor(topPx.current / LOG_ROW_HEIGHT);
  const visible = Math.ceil(viewport / LOG_ROW_HEIGHT) + 1;
  const from = Math.max(0, first - OVERSCAN);
  const to = Math.min(lineCount, first + visible + OVERSCAN);

  useEffect(() => {
    onTopLine?.(first);
  }, [first, onTopLine]);

  useEffect(() => {
    // A page of margin both ways, so scrolling on finds its lines already there.
    source.want(Math.max(0, from - LOG_PAGE_LINES / 2), to + LOG_PAGE_LINES / 2);
  });

  const rows = [];
  for (let index = from; index < to; index += 1) {
    const top = scrollTop + index * LOG_ROW_HEIGHT - topPx.current;
    rows.push(<LogRow key={index} index={index} top={top} raw={source.line(index)} clipped={source.isClipped(index)} query={query} current={index === currentLine} />);
  }
  const digits = String(Math.max(lineCount, 1)).length;

  return (
    <div
      ref={scroller}
      className="log-view"
      role="region"
      aria-label={label}
      // The output is read by scrolling it: it takes focus for the keys.
      tabIndex={0}
      data-testid="job-log"
      data-lines={lineCount}
      data-following={following || undefined}
      onScroll={onScroll}
      onKeyDown={onKeyDown}
      style={{ ['--log-gutter' as string]: `${digits + 1}ch` }}
    >
      <div className="log-spacer" style={{ height: total }} aria-hidden="true" />
      {rows}
    </div>
  );
}

const LogRow = memo(function LogRow({
  index,
  top,
  raw,
  clipped,
  query,
  current,
}: {
  readonly index: number;
  readonly top: number;
  readonly raw: string | undefined;
  readonly clipped: boolean;
  readonly query: string;
  readonly current: boolean;
}) {
  const spans = raw === undefined ? null : markMatches(logLineSpans(raw), query);
  return (
    <div
      className="log-line"
      style={{ transform: `translateY(${top}px)` }}
      data-line={index + 1}
      data-current={current || undefined}
      data-loading={raw === undefined || undefined}
    >
      <span className="log-number" aria-hidden="true">
        {index + 1}
      </span>
      <span className="log-text">
        {spans?.map((span, i) => <Span key={i} span={span} />)}
        {clipped ? <span className="log-clipped"> … (line cut here: download the log for all of it)</span> : null}
      </span>
    </div>
  );
});

function colorOf(color: LogColor): { className?: string; css?: string } {
  if (typeof color === 'string') return { css: color };
  return color < 16 ? { className: String(color) } : { css: xtermColor(color) };
}

function Span({ span }: { readonly span: LogSpan }) {
  const { style } = span;
  if (!style) return span.mark ? <mark className="log-mark">{span.text}</mark> : <>{span.text}</>;
  const fg = style.inverse ? style.bg : style.fg;
  const bg = style.inverse ? style.fg : style.bg;
  const classes: string[] = [];
  const css: React.CSSProperties = {};
  if (fg !== null) {
    const { className, css: value } = colorOf(fg);
    if (className) classes.push(`ansi-fg-${className}`);
    else css.color = value!;
  } else if (style.inverse) {
    classes.push('ansi-fg-inverse');
  }
  if (bg !== null) {
    const { className, css: value } = colorOf(bg);
    if (className) classes.push(`ansi-bg-${className}`);
    else css.backgroundColor = value!;
  } else if (style.inverse) {
    classes.push('ansi-bg-inverse');
  }
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  if (style.strike) classes.push('ansi-strike');
  if (span.mark) classes.push('log-mark');
  const Tag = span.mark ? 'mark' : 'span';
  return (
    <Tag className={classes.join(' ') || undefined} style={css}>
      {span.text}
    </Tag>
  );
}
