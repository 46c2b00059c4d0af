import type { StateStore } from '../store/state-store.js';

const MAX_BLOCK_GROWTH = 64;

/**
 * The event log's numbering: every seq is handed out once and numbers only
 * grow, also across crashes. Ephemeral and unlogged events never reach the
 * file, so its newest row does not bound what clients have seen; numbers are
 * therefore reserved durably in blocks before they are handed out, and after
 * a crash numbering resumes above the reservation (a gap, never a reuse).
 */
export class EventSequence {
  private seq: number;
  private reservedThrough: number;
  private block: number;
  private reservedAtMs = -Infinity;
  /** The last reservation was written inside a caller's transaction (not synced, and undone if it rolled back), or failed. */
  private unsynced = false;

  constructor(
    private readonly durable: StateStore,
    memory: StateStore,
    private readonly reserveBlock: number,
    private readonly onError: (message: string, error: unknown) => void,
  ) {
    this.seq = Math.max(durable.events.reservedThrough(), memory.events.maxSeq());
    this.reservedThrough = this.seq;
    this.block = reserveBlock;
  }

  /** The newest seq handed out. */
  get last(): number {
    return this.seq;
  }

  next(): number {
    const seq = this.seq + 1;
    if (seq > this.reservedThrough) {
      // Each reservation is a synced write (a few ms): under a fast stream the block
      // grows so that happens about once a second at most.
      const at = performance.now();
      this.block = at - this.reservedAtMs < 1000 ? Math.min(this.block * 2, this.reserveBlock * MAX_BLOCK_GROWTH) : this.reserveBlock;
      this.reservedAtMs = at;
      const through = seq + this.block - 1;
      try {
        this.durable.events.reserveThrough(through);
        // Inside a caller's transaction it commits (or rolls back) with it: synced again before anything is announced.
        if (this.durable.db.inTransaction) this.unsynced = true;
      } catch (error) {
        this.unsynced = true;
        this.onError('could not reserve event sequence numbers', error);
      }
      this.reservedThrough = through;
    }
    this.seq = seq;
    return seq;
  }

  /**
   * Makes sure the reservation covering every seq handed out is synced to
   * disk (called outside any transaction, before events are announced).
   * False when it could not be written.
   */
  sync(): boolean {
    if (!this.unsynced) return true;
    try {
      this.durable.events.reserveThrough(this.reservedThrough);
      this.unsynced = false;
      return true;
    } catch (error) {
      this.onError('could not reserve event sequence numbers', error);
      return false;
    }
  }
}
