import path from 'node:path';
import { ProcessSupervisor } from '../electron/exec/supervisor.js';

/**
 * A stand-in for the app in "a run outlives the process that started it":
 * starts one detached run, prints its handle as one JSON line, then waits to
 * be killed. argv: <runs dir> <cwd> <command>.
 */
const [runsDir, cwd, command] = process.argv.slice(2) as [string, string, string];
const supervisor = new ProcessSupervisor({ logDir: path.join(runsDir, '..', 'logs'), runsDir });
const place = supervisor.detached.prepare('outliving-run');
const handle = await supervisor.detached.startDetached(place, { command, cwd });
process.stdout.write(`${JSON.stringify(handle)}\n`);
setInterval(() => undefined, 60_000);
