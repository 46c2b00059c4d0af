import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ProcessSupervisor } from './supervisor.js';

const temp = new TempDirs();
let supervisor: ProcessSupervisor | undefined;

afterEach(async () => {
  await supervisor?.dispose();
  supervisor = undefined;
  temp.cleanup();
});

/**
 * coreutils close stdin, stdout and stderr just before they exit. With nothing else holding the
 * terminal, node-pty closed its end on the resulting EIO and the kernel's hang-up killed the
 * program in its last instant: `touch x` succeeded yet read as "killed by SIGHUP" about half the time.
 */
describe('a command in a terminal that closes its terminal before exiting', () => {
  it('reports its own exit status, every time', async () => {
    supervisor = new ProcessSupervisor({ logDir: temp.make('wheelhouse-exec-logs-') });
    const cwd = temp.make();
    const exits: string[] = [];
    for (let i = 0; i < 16; i++) {
      const child = await supervisor.spawn({ command: ['touch', `file-${i}`], cwd, tty: true });
      const exit = await child.exited;
      exits.push(exit.signal ?? `exit ${exit.exitCode}`);
    }
    expect(exits).toEqual(Array.from({ length: 16 }, () => 'exit 0'));
    expect(fs.readdirSync(cwd)).toHaveLength(16);

    // The same with a status of its own, and the output it wrote before closing still arrives.
    const shell = await supervisor.spawn({ command: ['sh', '-c', 'echo last words; exec 0<&- 1>&- 2>&-; exit 3'], cwd, tty: true });
    let output = '';
    shell.subscribe((event) => {
      if (event.type === 'output') output += event.data.toString('utf8');
    });
    const exit = await shell.exited;
    expect(exit).toMatchObject({ exitCode: 3, signal: null });
    expect(output).toContain('last words');
  });
});
