import { afterEach, describe, expect, it } from 'vitest';
import { alive, pidsAfter } from '../../test-support/exec.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ExecSessions } from './exec-sessions.js';
import { ProcessSupervisor } from './supervisor.js';

const temp = new TempDirs();
const supervisors: ProcessSupervisor[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.dispose()));
  temp.cleanup();
});

function sessions(maxOutputBytes?: number): ExecSessions {
  const supervisor = new ProcessSupervisor({ logDir: temp.make() });
  supervisors.push(supervisor);
  return new ExecSessions(supervisor, { maxOutputBytes });
}

describe('exec sessions (yield)', () => {
  it('answers with the exit when the command finishes within the yield time', async () => {
    const answer = await sessions().start({ command: 'echo quick', cwd: temp.make(), tty: false }, { yieldMs: 30_000 });
    expect(answer).toMatchObject({ status: 'exited', output: 'quick\n', exit: { exitCode: 0 } });
  });

  it('answers with a session id when the command is still running, then takes input and collects the rest', async () => {
    const exec = sessions();
    const first = await exec.start({ command: 'echo "ready"; read name; echo "hello $name"', cwd: temp.make(), tty: false }, { yieldMs: 300 });
    expect(first.status).toBe('running');
    expect(exec.list()).toEqual([first.sessionId]);
    const second = await exec.poll(first.sessionId, { input: 'world\n', yieldMs: 30_000 });
    expect(second.status).toBe('exited');
    // Each answer carries only what is new since the previous one.
    expect(first.output + second.output).toBe('ready\nhello world\n');
    expect(exec.list()).toEqual([]);
    await expect(exec.poll(first.sessionId, { yieldMs: 0 })).rejects.toMatchObject({ code: 'unknown-session' });
  });

  it('bounds each answer and stops a session with its whole tree', async () => {
    const exec = sessions(64);
    const first = await exec.start(
      { command: 'sleep 300 & echo "pid:$!"; seq 1 5000; wait', cwd: temp.make(), tty: false },
      { yieldMs: 1500 },
    );
    expect(first.status).toBe('running');
    const stopped = await exec.stop(first.sessionId);
    expect(stopped).toMatchObject({ status: 'exited', exit: { reason: 'terminated' } });
    const all = first.output + stopped.output;
    expect(all).toMatch(/bytes omitted/);
    expect(Buffer.byteLength(first.output)).toBeLessThan(64 + 40);
    const [sleeper] = pidsAfter(all, 'pid:');
    expect(sleeper).toBeGreaterThan(0);
    expect(alive([sleeper!])).toEqual([]);
  });
});
