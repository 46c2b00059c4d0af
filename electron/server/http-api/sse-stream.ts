import type http from 'node:http';
import type { AnyNotification, RuntimeEventEnvelope } from '../../../shared/protocol/index.js';
import { RUNTIME_EVENT_SCHEMA_VERSION } from '../../../shared/protocol/index.js';
import type { EventLog } from '../../runtime/event-log.js';
import type { PendingEvent } from '../../store/event-store.js';
import { toSnakeKeys } from './case-keys.js';

export interface SseOptions {
  /** Comment lines sent this often keep proxies and idle timers from closing the stream. */
  readonly keepaliveMs: number;
  /** A live client whose unsent backlog passes this many bytes is cut (with a `cut` event). */
  readonly maxBufferedBytes: number;
  /** Live events held while the replay runs; past this the client is cut. */
  readonly maxPendingEvents: number;
  /** Events read from the log per page during replay. */
  readonly replayPageSize: number;
}

export const DEFAULT_SSE_OPTIONS: SseOptions = {
  keepaliveMs: 15_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  maxPendingEvents: 100_000,
  replayPageSize: 1000,
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
 * Streams the event log as Server-Sent Events: replays what the log holds
 * after `sinceSeq`, then goes live. It subscribes before replaying and holds
 * live events until the replay has caught up, then sends only those newer
 * than the last replayed seq, so the seam has no gap and no duplicate.
 */
export function streamEvents(
  events: Pick<EventLog, 'subscribe' | 'replay' | 'lastSeq'>,
  res: http.ServerResponse,
  request: SseRequest,
  options: SseOptions = DEFAULT_SSE_OPTIONS,
): void {
  let mode: 'replaying' | 'live' | 'closed' = 'replaying';
  let lastSent = request.sinceSeq ?? events.lastSeq;
  let held: { seq: number; frame: string }[] = [];

  const unsubscribe = events.subscribe((notification, _text, logged) => {
    if (mode === 'closed') return;
    if (request.threadId !== undefined && logged.threadId !== request.threadId) return;
    const frame = liveFrameOf(notification, logged);
    if (mode === 'live') {
      send(logged.seq, frame);
      return;
    }
    held.push({ seq: logged.seq, frame });
    if (held.length > options.maxPendingEvents) cut('client too slow: replay fell behind the live stream');
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

  function send(seq: number, frame: string): void {
    if (mode === 'closed' || seq <= lastSent) return;
    if (res.writableLength > options.maxBufferedBytes) {
      cut(`client too slow: more than ${options.maxBufferedBytes} bytes unsent`);
      return;
    }
    lastSent = seq;
    res.write(frame);
  }

  /** Ends the stream with the reason; the client reconnects with Last-Event-ID and replays what it missed. */
  function cut(reason: string): void {
    if (mode === 'closed') return;
    res.write(controlFrame('cut', { reason, last_seq: lastSent }));
    close();
    res.end();
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': wheelhouse runtime events\n\n');

  if (request.sinceSeq === null) goLive();
  else
    void replay(request.sinceSeq).catch(() => {
      close();
      res.destroy();
    });

  async function replay(sinceSeq: number): Promise<void> {
    for (let first = true; ; first = false) {
      if (mode === 'closed') return;
      const page = events.replay(lastSent, options.replayPageSize, request.threadId);
      if (first && page.reset) {
        // The client's view cannot be completed from the log: it must reload, then follow from here.
        const latest = events.lastSeq;
        lastSent = latest;
        const reason = sinceSeq > latest ? 'since_seq is newer than the log' : 'the log no longer holds the events after since_seq';
        res.write(controlFrame('reset', { reason, since_seq: sinceSeq, oldest_seq: page.oldestSeq, latest_seq: latest }, latest));
        break;
      }
      for (const envelope of page.events) {
        lastSent = envelope.seq;
        res.write(frameOf(envelope));
      }
      if (page.events.length < options.replayPageSize) break;
      // The client reads at its own pace; live events wait in `held` meanwhile.
      if (res.writableNeedDrain) await waitForDrain(res);
    }
    goLive();
  }

  function goLive(): void {
    if (mode === 'closed') return;
    mode = 'live';
    const waiting = held;
    held = [];
    for (const event of waiting) send(event.seq, event.frame);
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
