import { trackWait } from './waiting.js';
import {
  classifyMessage,
  type NotificationMessage,
  type RequestMessage,
  type ResponseMessage,
} from '../shared/protocol/index.js';

/** A message a test peer received, classified by the protocol's own rules. */
export type Received =
  | { readonly kind: 'request'; readonly message: RequestMessage }
  | { readonly kind: 'notification'; readonly message: NotificationMessage }
  | { readonly kind: 'response'; readonly message: ResponseMessage };

interface Waiter {
  readonly match: (received: Received) => boolean;
  readonly resolve: (received: Received) => void;
  readonly reject: (error: Error) => void;
  readonly timer: ReturnType<typeof setTimeout> | undefined;
  readonly untrack: () => void;
}

/**
 * How long a wait lasts when the caller gives no limit: under vitest, only the
 * test's own timeout ends it (the leak check then names it); elsewhere
 * (benchmarks), a minute.
 */
const DEFAULT_WAIT_MS = process.env['VITEST'] ? undefined : 60_000;

/**
 * Everything a test peer received, in arrival order. Tests `take` the message
 * they wait for; it resolves the moment that message arrives.
 */
export class MessageInbox {
  private readonly unread: Received[] = [];
  private readonly waiters = new Set<Waiter>();
  /** Text that was not a valid protocol message; a well-behaved server leaves this empty. */
  readonly garbage: string[] = [];
  private closedReason: string | undefined;

  /** `observe` sees every text before it is classified (the conformance checks). */
  constructor(private readonly observe?: (text: string) => void) {}

  /** Feeds one line/frame of text received from the server. */
  push(text: string): void {
    this.observe?.(text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.garbage.push(text);
      return;
    }
    const received = classifyMessage(value);
    if (!received) {
      this.garbage.push(text);
      return;
    }
    for (const waiter of this.waiters) {
      if (waiter.match(received)) {
        this.settle(waiter);
        waiter.resolve(received);
        return;
      }
    }
    this.unread.push(received);
  }

  /**
   * Takes the first message matching `match`, waiting for it if it has not
   * arrived yet; `timeoutMs` adds a limit of the wait's own.
   */
  take(match: (received: Received) => boolean, what: string, timeoutMs = DEFAULT_WAIT_MS): Promise<Received> {
    const index = this.unread.findIndex(match);
    if (index >= 0) return Promise.resolve(this.unread.splice(index, 1)[0]!);
    if (this.closedReason !== undefined) {
      return Promise.reject(new Error(`channel closed (${this.closedReason}) while waiting for ${what}`));
    }
    return new Promise<Received>((resolve, reject) => {
      const fail = (message: string) => {
        this.settle(waiter);
        reject(new Error(message));
      };
      const waiter: Waiter = {
        match,
        resolve,
        reject,
        timer: timeoutMs === undefined ? undefined : setTimeout(() => fail(`timed out after ${timeoutMs} ms waiting for ${what}`), timeoutMs),
        untrack: trackWait(what, (reason) => fail(`${reason} while waiting for ${what}`)),
      };
      this.waiters.add(waiter);
    });
  }

  private settle(waiter: Waiter): void {
    this.waiters.delete(waiter);
    clearTimeout(waiter.timer);
    waiter.untrack();
  }

  /** Takes the response to request `id` (or an id-less error when `id` is null). */
  async response(id: string | number | null, timeoutMs?: number): Promise<ResponseMessage> {
    const received = await this.take(
      (r) => r.kind === 'response' && r.message.id === id,
      `the response to request ${String(id)}`,
      timeoutMs,
    );
    return received.message as ResponseMessage;
  }

  /** Takes the next notification of `method`. */
  async notification(method: string, timeoutMs?: number): Promise<NotificationMessage> {
    const received = await this.take(
      (r) => r.kind === 'notification' && r.message.method === method,
      `a ${method} notification`,
      timeoutMs,
    );
    return received.message as NotificationMessage;
  }

  /** The first unread message matching `match`, left unread (undefined: none arrived). */
  peek(match: (received: Received) => boolean): Received | undefined {
    return this.unread.find(match);
  }

  /** Removes and returns every unread notification. */
  drainNotifications(): NotificationMessage[] {
    const taken: NotificationMessage[] = [];
    for (let i = this.unread.length - 1; i >= 0; i--) {
      const received = this.unread[i]!;
      if (received.kind === 'notification') {
        taken.unshift(received.message);
        this.unread.splice(i, 1);
      }
    }
    return taken;
  }

  /** Fails every waiter: the channel is gone. */
  close(reason: string): void {
    this.closedReason ??= reason;
    for (const waiter of [...this.waiters]) {
      this.settle(waiter);
      waiter.reject(new Error(`channel closed (${reason}) while waiting`));
    }
  }
}
