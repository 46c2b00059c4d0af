import { ApprovalStore } from './approval-store.js';
import { CheckpointStore } from './checkpoint-store.js';
import { RetentionStore } from './retention-store.js';
import { openDatabase, type Db, type OpenDatabaseOptions } from './database.js';
import { DynamicToolStore } from './dynamic-tool-store.js';
import { EventStore } from './event-store.js';
import { GoalStore } from './goal-store.js';
import { ItemStore } from './item-store.js';
import { JobStore } from './job-store.js';
import { PendingItemStore } from './pending-item-store.js';
import { QueueStore } from './queue-store.js';
import { ReadStateStore } from './read-state-store.js';
import { ScheduleStore } from './schedule-store.js';
import { ThreadStore } from './thread-store.js';
import { TurnStore } from './turn-store.js';

/** All repositories over one SQLite database. */
export class StateStore {
  readonly threads: ThreadStore;
  readonly turns: TurnStore;
  readonly items: ItemStore;
  readonly checkpoints: CheckpointStore;
  readonly events: EventStore;
  readonly retention: RetentionStore;
  readonly goals: GoalStore;
  readonly pending: PendingItemStore;
  readonly queue: QueueStore;
  readonly jobs: JobStore;
  readonly schedules: ScheduleStore;
  readonly dynamicTools: DynamicToolStore;
  readonly approvals: ApprovalStore;
  readonly readStates: ReadStateStore;

  private constructor(readonly db: Db) {
    this.threads = new ThreadStore(db);
    this.turns = new TurnStore(db);
    this.items = new ItemStore(db);
    this.checkpoints = new CheckpointStore(db);
    this.events = new EventStore(db);
    this.retention = new RetentionStore(db);
    this.goals = new GoalStore(db);
    this.pending = new PendingItemStore(db);
    this.queue = new QueueStore(db);
    this.jobs = new JobStore(db);
    this.schedules = new ScheduleStore(db);
    this.dynamicTools = new DynamicToolStore(db);
    this.approvals = new ApprovalStore(db);
    this.readStates = new ReadStateStore(db);
  }

  /** Opens the durable store at `file`. */
  static open(file: string, options?: OpenDatabaseOptions): StateStore {
    return new StateStore(openDatabase(file, options));
  }

  /** A store that lives in memory only: used for ephemeral threads and tests. */
  static inMemory(options?: OpenDatabaseOptions): StateStore {
    return new StateStore(openDatabase(':memory:', options));
  }

  /** Runs `fn` in one transaction: all of its writes land, or none do. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
