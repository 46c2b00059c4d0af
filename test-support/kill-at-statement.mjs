// `node --import ./test-support/kill-at-statement.mjs …`: with WHEELHOUSE_KILL_AT_SQL set (a regular
// expression), the process sends itself SIGKILL just before it runs the first SQLite statement whose
// SQL matches and whose bound values, as JSON, contain WHEELHOUSE_KILL_AT_VALUES (if set). A crash at
// an exact point between two durable steps, on the real store, in the real built host: what a test
// of "a claim is durable before its run starts" needs, in place of a race against a poll.
import { createRequire } from 'node:module';

const pattern = process.env.WHEELHOUSE_KILL_AT_SQL ? new RegExp(process.env.WHEELHOUSE_KILL_AT_SQL) : null;
const values = process.env.WHEELHOUSE_KILL_AT_VALUES ?? '';

if (pattern) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function prepareWatched(sql, ...rest) {
    const statement = prepare.call(this, sql, ...rest);
    if (!pattern.test(sql)) return statement;
    const run = statement.run;
    statement.run = function runWatched(...args) {
      if (JSON.stringify(args).includes(values)) process.kill(process.pid, 'SIGKILL');
      return run.apply(this, args);
    };
    return statement;
  };
}
