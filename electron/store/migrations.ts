/**
 * Versioned schema migrations, applied in order at open inside one transaction
 * each. Never edit a shipped migration: add a new one. Later features (jobs,
 * queued turns, approvals, MCP) arrive as new entries here.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'threads, items, checkpoints, event log',
    sql: `
      CREATE TABLE threads (
        id              TEXT PRIMARY KEY,
        rollout_path    TEXT,
        preview         TEXT NOT NULL DEFAULT '',
        ephemeral       INTEGER NOT NULL DEFAULT 0,
        model_provider  TEXT NOT NULL,
        model           TEXT,
        created_at_ms   INTEGER NOT NULL,
        updated_at_ms   INTEGER NOT NULL,
        status          TEXT NOT NULL DEFAULT 'idle',
        path            TEXT,
        cwd             TEXT NOT NULL,
        cli_version     TEXT NOT NULL,
        source          TEXT NOT NULL,
        name            TEXT,
        sandbox_policy  TEXT,
        approval_mode   TEXT,
        archived        INTEGER NOT NULL DEFAULT 0,
        archived_at_ms  INTEGER,
        git_sha         TEXT,
        git_branch      TEXT,
        git_origin_url  TEXT,
        memory_mode     TEXT,
        forked_from_id  TEXT
      ) STRICT;
      CREATE INDEX threads_by_recency ON threads (archived, updated_at_ms DESC, id DESC);

      CREATE TABLE turns (
        id              TEXT PRIMARY KEY,
        thread_id       TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL,
        status          TEXT NOT NULL,
        model           TEXT,
        error           TEXT,
        usage           TEXT,
        started_at_ms   INTEGER,
        completed_at_ms INTEGER,
        UNIQUE (thread_id, ordinal)
      ) STRICT;

      CREATE TABLE thread_items (
        id              TEXT PRIMARY KEY,
        thread_id       TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_id         TEXT REFERENCES turns(id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL,
        type            TEXT NOT NULL,
        role            TEXT,
        content         TEXT NOT NULL DEFAULT '',
        item            TEXT NOT NULL,
        created_at_ms   INTEGER NOT NULL,
        UNIQUE (thread_id, ordinal)
      ) STRICT;
      CREATE INDEX thread_items_by_turn ON thread_items (turn_id);

      CREATE TABLE checkpoints (
        thread_id       TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        checkpoint_id   TEXT NOT NULL,
        reason          TEXT NOT NULL,
        state           TEXT NOT NULL,
        created_at_ms   INTEGER NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_id)
      ) STRICT;

      -- Append-only runtime event log (seed 004 RuntimeEventEnvelope); seq is monotonic.
      CREATE TABLE events (
        seq             INTEGER PRIMARY KEY,
        schema_version  INTEGER NOT NULL,
        event           TEXT NOT NULL,
        kind            TEXT NOT NULL,
        thread_id       TEXT,
        turn_id         TEXT,
        item_id         TEXT,
        created_at_ms   INTEGER NOT NULL,
        payload         TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_by_thread ON events (thread_id, seq);
    `,
  },
  {
    version: 2,
    name: 'thread goals',
    sql: `
      CREATE TABLE thread_goals (
        thread_id         TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        goal_id           TEXT NOT NULL,
        objective         TEXT NOT NULL,
        status            TEXT NOT NULL,
        token_budget      INTEGER,
        tokens_used       INTEGER NOT NULL DEFAULT 0,
        time_used_seconds INTEGER NOT NULL DEFAULT 0,
        created_at_ms     INTEGER NOT NULL,
        updated_at_ms     INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 3,
    name: 'event log retention index',
    sql: `
      CREATE INDEX events_by_time ON events (created_at_ms);
    `,
  },
  {
    version: 4,
    name: 'queued turns',
    // Seed 003's thread_queued_turns; JSON kept as TEXT like the other tables.
    sql: `
      CREATE TABLE thread_queued_turns (
        queued_turn_id         TEXT PRIMARY KEY NOT NULL,
        thread_id              TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_start_params      TEXT NOT NULL,
        client_user_message_id TEXT,
        client_metadata        TEXT,
        queue_order            INTEGER NOT NULL,
        state                  TEXT NOT NULL CHECK (state IN ('pending', 'dispatching', 'failed')),
        dispatch_turn_id       TEXT,
        failure                TEXT,
        created_at_ms          INTEGER NOT NULL,
        updated_at_ms          INTEGER NOT NULL,
        UNIQUE (thread_id, queue_order)
      ) STRICT;
      CREATE INDEX thread_queued_turns_thread_state_order_idx
        ON thread_queued_turns (thread_id, state, queue_order);
    `,
  },
  {
    version: 5,
    name: 'durable event sequence, acknowledged steer input, streamed text checkpoints',
    sql: `
      -- One row: seq values up to reserved_through_seq may have been handed out (never reuse
      -- them), and events up to pruned_through_seq may have been pruned (replay from before
      -- it is incomplete).
      CREATE TABLE event_sequence (
        id                   INTEGER PRIMARY KEY CHECK (id = 1),
        reserved_through_seq INTEGER NOT NULL,
        pruned_through_seq   INTEGER NOT NULL
      ) STRICT;
      INSERT INTO event_sequence (id, reserved_through_seq, pruned_through_seq)
        SELECT 1, COALESCE(MAX(seq), 0), 0 FROM events;

      -- Items acknowledged to clients but not yet in thread order: steer input waiting for the
      -- current model step to end, and the checkpointed text of a reply still streaming.
      -- A restart moves them into thread_items (turn-recovery.ts).
      CREATE TABLE pending_items (
        id              TEXT PRIMARY KEY,
        thread_id       TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_id         TEXT,
        kind            TEXT NOT NULL CHECK (kind IN ('steer', 'streaming')),
        item            TEXT NOT NULL,
        created_at_ms   INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX pending_items_by_thread ON pending_items (thread_id);
    `,
  },
  {
    version: 6,
    name: 'thread dynamic tools',
    // Client-side tools registered on thread/start (Codex DynamicToolSpec list as JSON).
    sql: `
      CREATE TABLE thread_dynamic_tools (
        thread_id     TEXT PRIMARY KEY NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        tools         TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 7,
    name: 'jobs and their runs',
    // Seed 000's jobs: \`detail\` holds the persisted detail JSON (schema_version, status, retry,
    // history); the other columns are what listing, the scheduler and a fallback need.
    sql: `
      CREATE TABLE jobs (
        id               TEXT PRIMARY KEY,
        kind             TEXT NOT NULL CHECK (kind IN ('command', 'agent')),
        name             TEXT NOT NULL,
        status           TEXT NOT NULL,
        progress         INTEGER,
        message          TEXT,
        attempt          INTEGER NOT NULL,
        max_attempts     INTEGER NOT NULL,
        next_retry_at_ms INTEGER,
        exit_code        INTEGER,
        thread_id        TEXT,
        command          TEXT,
        cwd              TEXT NOT NULL,
        runs             INTEGER NOT NULL DEFAULT 0,
        active_ms        INTEGER NOT NULL DEFAULT 0,
        eta_ms           INTEGER,
        queue_order      INTEGER NOT NULL,
        spec             TEXT NOT NULL,
        detail           TEXT,
        created_at_ms    INTEGER NOT NULL,
        updated_at_ms    INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX jobs_by_recency ON jobs (updated_at_ms DESC, id DESC);

      -- One row per run: where its output log is, and how it ended (null while running).
      CREATE TABLE job_runs (
        job_id          TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        run             INTEGER NOT NULL,
        log_path        TEXT NOT NULL,
        started_at_ms   INTEGER NOT NULL,
        ended_at_ms     INTEGER,
        outcome         TEXT,
        PRIMARY KEY (job_id, run)
      ) STRICT;
    `,
  },
  {
    version: 8,
    name: 'pending approvals',
    // Server requests waiting for the person (item/commandExecution/requestApproval), so a
    // reload re-sends them and a restart ends them clearly instead of leaving them hanging.
    sql: `
      CREATE TABLE pending_approvals (
        request_id     TEXT PRIMARY KEY NOT NULL,
        thread_id      TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
        turn_id        TEXT NOT NULL,
        item_id        TEXT NOT NULL,
        method         TEXT NOT NULL,
        params         TEXT NOT NULL,
        state          TEXT NOT NULL CHECK (state IN ('pending', 'answered', 'ended')),
        decision       TEXT,
        created_at_ms  INTEGER NOT NULL,
        resolved_at_ms INTEGER
      ) STRICT;
      CREATE INDEX pending_approvals_state ON pending_approvals (state, created_at_ms);
    `,
  },
  {
    version: 9,
    name: 'detached job runs',
    // A command job's run outlives the app: its identity (where it lives, then its wrapper's pid and
    // start time) is kept before it is announced, with how much of its log clients were sent, so a
    // restart re-attaches instead of running it again. Manual retries are counted apart from
    // automatic ones, and the running stretch's start is kept so running time survives a restart.
    sql: `
      ALTER TABLE jobs ADD COLUMN manual_retries INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE jobs ADD COLUMN active_since_ms INTEGER;
      ALTER TABLE job_runs ADD COLUMN handle TEXT;
      ALTER TABLE job_runs ADD COLUMN streamed_bytes INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 10,
    name: 'schedules',
    // A schedule runs a job template on a clock. Each slot is claimed (a schedule_runs row naming the
    // job id it will create) in the transaction that moves the schedule on, before the job exists: a
    // crash between the claim and the job's creation leaves a claim whose job is missing, started at
    // the next start under that same id; a claim whose job exists is never started again.
    sql: `
      ALTER TABLE jobs ADD COLUMN schedule_id TEXT;
      ALTER TABLE jobs ADD COLUMN schedule_notify TEXT;
      CREATE INDEX jobs_by_schedule ON jobs (schedule_id) WHERE schedule_id IS NOT NULL;
      CREATE TABLE schedules (
        id               TEXT PRIMARY KEY,
        name             TEXT NOT NULL,
        job              TEXT NOT NULL,
        cron             TEXT,
        interval_ms      INTEGER,
        at_ms            INTEGER,
        time_zone        TEXT NOT NULL,
        overlap          TEXT NOT NULL CHECK (overlap IN ('skip', 'queue', 'allow')),
        missed           TEXT NOT NULL CHECK (missed IN ('runOnce', 'skip', 'runAll')),
        missed_limit     INTEGER NOT NULL,
        notify           TEXT NOT NULL CHECK (notify IN ('failure', 'always', 'never')),
        paused           INTEGER NOT NULL DEFAULT 0,
        anchor_ms        INTEGER NOT NULL,
        next_run_at_ms   INTEGER,
        last_slot_at_ms  INTEGER,
        created_at_ms    INTEGER NOT NULL,
        updated_at_ms    INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE schedule_runs (
        schedule_id      TEXT NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        slot_at_ms       INTEGER NOT NULL,
        trigger          TEXT NOT NULL CHECK (trigger IN ('clock', 'runNow', 'missed')),
        job_id           TEXT,
        outcome          TEXT,
        detail           TEXT,
        claimed_at_ms    INTEGER NOT NULL,
        PRIMARY KEY (schedule_id, slot_at_ms)
      ) STRICT;
    `,
  },
  {
    version: 11,
    name: 'command output stored once',
    // A command's output lives in its process log; an output delta's event keeps where its bytes
    // are (file, offset, length) instead of a second copy. Files are named once in output_files.
    sql: `
      CREATE TABLE output_files (
        id    INTEGER PRIMARY KEY,
        path  TEXT NOT NULL UNIQUE
      ) STRICT;
      ALTER TABLE events ADD COLUMN output_file INTEGER;
      ALTER TABLE events ADD COLUMN output_offset INTEGER;
      ALTER TABLE events ADD COLUMN output_length INTEGER;
      CREATE INDEX events_by_output_file ON events (output_file) WHERE output_file IS NOT NULL;
    `,
  },
  {
    version: 12,
    name: 'thread originator and read receipts',
    // Which client made a thread (its initialize `clientInfo.name`, Codex's `originator`); null for
    // threads made before it was kept. One read receipt per thread (Codex's `thread_read_receipts`):
    // the first finished turn the person has not seen ('' when they marked the whole thread unread,
    // null when read), a revision that changes with every new result or mark (a mark made from an
    // older view is refused), and the last turn announced, so a turn's result is announced once.
    // A thread without a row reads as read, with revision `initial:<thread id>`.
    sql: `
      ALTER TABLE threads ADD COLUMN originator TEXT;
      CREATE TABLE thread_read_receipts (
        thread_id            TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
        first_unread_turn    TEXT,
        revision             TEXT NOT NULL,
        last_published_turn  TEXT
      ) STRICT;
    `,
  },
  {
    version: 13,
    name: 'job array tasks',
    // A Slurm job array's tasks in a run (JSON: index, state, exit code, detail), as last seen.
    sql: `ALTER TABLE job_runs ADD COLUMN tasks TEXT;`,
  },
  {
    version: 14,
    name: 'thread environment',
    // Where a thread's commands run (Codex's `environments`): this machine, or an SSH host and the
    // folder there.
    sql: `
      ALTER TABLE threads ADD COLUMN environment_id TEXT NOT NULL DEFAULT 'local';
      ALTER TABLE threads ADD COLUMN environment_cwd TEXT;
      CREATE INDEX threads_by_environment ON threads (environment_id) WHERE environment_id <> 'local';
    `,
  },
];
