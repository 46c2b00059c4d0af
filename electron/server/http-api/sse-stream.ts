import type http from 'node:http';
import type { AnyNotification, RuntimeEventEnvelope } from '../../../shared/protocol/index.js';
import { RUNTIME_EVENT_SCHEMA_VERSION } from '../../../shared/protocol/index.js';
import type { EventLog } from '../../runtime/event-log.js';
import type { PendingEvent } from '../../store/event-store.js';
import { toSnakeKeys } from './case-keys.js';

export interface SseOptions {
  /** Comment lines sent this often keep proxies and idle timers from closing the stream. */
  readonly keepaliveMs: number;
  /**
   * A live client whose unsent backlog passes this many bytes stops getting
   * live events and is served from the log at its own pace until it has caught up.
   */
  readonly maxBufferedBytes: number;
  /** Events read from the log per page while replaying or pacing (a page is in memory at once). */
  readonly replayPageSize: number;
  /** Told the stream's unsent backlog after each write (benchmarks and tests measure it). */
  readonly onBacklog?: (bytes: number) => void;
}

export const DEFAULT_SSE_OPTIONS: SseOptions = {
  keepaliveMs: 15_000,
  maxBufferedBytes: 1024 * 1024,
  replayPageSize: 100,
};

export interface SseRequest {
  /** Only this thread's events; all threads when absent. */
  readonly threadId?: string;
  /** Replay events after this seq; live only (from now) when null. */
  readonly sinceSeq: number | null;
}

/** One SSE frame per live event, built once and shared by every subscriber. */
const liveFrames = new WeakMap<PendingEvent, string>();

function frameOf(envelope: RuntimeEventEnvelope): string {
  return `id: ${envelope.seq}\nevent: ${envelope.event}\ndata: ${JSON.stringify(toSnakeKeys(envelope))}\n\n`;
}

function liveFrameOf(notification: AnyNotification, logged: PendingEvent): string {
  let frame = liveFrames.get(logged);
  if (frame === undefined) {
    frame = frameOf({
      schemaVersion: RUNTIME_EVENT_SCHEMA_VERSION,
      seq: logged.seq,
      event: logged.event,
      kind: logged.kind,
      threadId: logged.threadId,
      turnId: logged.turnId,
      itemId: logged.itemId,
      timestamp: new Date(logged.createdAtMs).toISOString(),
      payload: notification.params,
    });
    liveFrames.set(logged, frame);
  }
  return frame;
}

function controlFrame(event: string, data: Record<string, unknown>, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Streams the event log as Server-Sent Events. A stream is a cursor on the
 * log (`lastSent`): live, it writes each event as it is announced; replaying
 * (`since_seq`) or behind (a client reading slower than events come, past
 * `maxBufferedBytes` unsent), it is **paced**: it reads pages from the log
 * after `lastSent` and writes the next page only once the client has taken
 * the last (drain), then goes live again once it has caught up. Nothing
 * piles up in memory however slow the client, and nothing is skipped. It is
 * cut only when its position has been pruned from the log (`reset`).
 * Unlogged events (job output, whose record is the job's log) reach a stream
 * only while it is live.
 */
export function streamEvents(
  events: Pick<EventLog, 'subscribe' | 'replay' | 'lastSeq'>,
  res: http.ServerResponse,
  request: SseRequest,
  options: SseOptions = DEFAULT_SSE_OPTIONS,
): void {
  let mode: 'paced' | 'live' | 'closed' = request.sinceSeq === null ? 'live' : 'paced';
  let lastSent = request.sinceSeq ?? events.lastSeq;

  const unsubscribe = events.subscribe((notification, _text, logged) => {
    if (mode !== 'live') return; // paced: the pump reads it from the log
    if (request.threadId !== undefined && logged.threadId !== request.threadId) return;
    if (logged.seq <= lastSent) return;
    if (res.writableLength > options.maxBufferedBytes) {
      // Behind: from here on the log is its buffer.
      mode = 'paced';
      void pump(false);
      return;
    }
    lastSent = logged.seq;
    write(liveFrameOf(notification, logged));
  });
  const keepalive = setInterval(() => {
    if (mode !== 'closed') res.write(': keepalive\n\n');
  }, options.keepaliveMs);
  keepalive.unref();

  const close = () => {
    if (mode === 'closed') return;
    mode = 'closed';
    unsubscribe();
    clearInterval(keepalive);
  };
  res.on('close', close);

  function write(frame: string): boolean {
    const ok = res.write(frame);
    options.onBacklog?.(res.writableLength);
    return ok;
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': wheelhouse runtime events\n\n');

  if (mode === 'paced') void pump(true);

  /** Serves the client from the log at its pace until it has caught up, then goes live. */
  async function pump(resuming: boolean): Promise<void> {
    try {
      for (let first = true; ; first = false) {
        if (mode !== 'paced') return;
        if (res.writableNeedDrain) await waitForDrain(res);
        if (mode !== 'paced') return;
        const page = events.replay(lastSent, options.replayPageSize, request.threadId);
        if (page.reset) {
          const latest = events.lastSeq;
          if (first && resuming) {
            // The client's view cannot be completed from the log: it must reload, then follow from here.
            const sinceSeq = request.sinceSeq ?? lastSent;
            const reason = sinceSeq > latest ? 'since_seq is newer than the log' : 'the log no longer holds the events after since_seq';
            lastSent = latest;
            write(controlFrame('reset', { reason, since_seq: sinceSeq, oldest_seq: page.oldestSeq, latest_seq: latest }, latest));
            break;
          }
          // What it had not read yet was pruned meanwhile: it reloads and reconnects.
          write(controlFrame('reset', { reason: 'the log no longer holds the events after last_seq', since_seq: lastSent, oldest_seq: page.oldestSeq, latest_seq: latest }, latest));
          close();
          res.end();
          return;
        }
        for (const envelope of page.events) {
          lastSent = envelope.seq;
          if (!write(frameOf(envelope))) break;
        }
        const wholePage = page.events.length === 0 || lastSent === page.events.at(-1)!.seq;
        if (wholePage && page.events.length < options.replayPageSize && !res.writableNeedDrain) break;
      }
    } catch {
      close();
      res.destroy();
      return;
    }
    // Caught up with the log: events announced from now on go out live (replay flushed everything before).
    if (mode === 'paced') mode = 'live';
  }
}
function waitForDrain(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
