import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandItem, execCall, textReply } from '../../test-support/agent-commands.js';
import { repoRoot } from '../../test-support/paths.js';
import { FIRST_OUTPUT } from '../../test-support/module-trace-hooks.mjs';
import { useStdioAgentHomes } from '../../test-support/stdio-agent-home.js';

/**
 * Start-up speed and memory depend on what the built CLI loads: the keychain
 * addon and the web server's ws are loaded only when first needed (the
 * keychain addon not at all where keys live in the private file), and the
 * OpenAI SDK never (the model clients speak HTTP through fetch). A module trace of the real process keeps it so.
 */
const stdio = useStdioAgentHomes();

const tracer = path.join(repoRoot, 'test-support', 'module-trace.mjs');
const PACKAGES = ['openai', '@napi-rs/keyring', 'ws', 'better-sqlite3', '@modelcontextprotocol/sdk'] as const;

/** Which of PACKAGES the process has resolved so far. */
function loadedPackages(traceFile: string): string[] {
  const urls = fs.existsSync(traceFile) ? fs.readFileSync(traceFile, 'utf8') : '';
  return PACKAGES.filter((name) => urls.includes(`/node_modules/${name}/`));
}

/** The built modules (`dist/node/…`) the trace lists before the process's first output, and all of them. */
function builtModules(traceFile: string): { beforeFirstOutput: string[]; all: string[] } {
  const lines = fs.readFileSync(traceFile, 'utf8').split('\n');
  const built = (urls: string[]) => urls.filter((url) => url.startsWith('file:') && url.includes('/dist/node/')).map((url) => fileURLToPath(url));
  const marker = lines.indexOf(FIRST_OUTPUT);
  return { beforeFirstOutput: built(marker < 0 ? lines : lines.slice(0, marker)), all: built(lines) };
}

const codeOf = (files: readonly string[]) => [...new Set(files)].map((file) => fs.readFileSync(file, 'utf8')).join('\n');

/** How many methods, notifications and server requests the given bundle files declare (each builds its schemas as it loads). */
function declaredMessages(files: readonly string[]): number {
  const code = codeOf(files);
  return [...code.matchAll(/\bdefine(?:Method|Notification)\(/g)].length - [...code.matchAll(/\bfunction define(?:Method|Notification)\(/g)].length;
}

describe('what `wheelhouse app-server` loads', () => {
  it('answers initialize before zod or any method\'s schemas load; they load for the first other request', async () => {
    const { home } = stdio.makeHome('wheelhouse-startup-');
    const traceFile = path.join(home, 'modules.log');
    const server = stdio.start(home, { nodeArgs: ['--import', tracer], env: { WHEELHOUSE_TRACE_MODULES: traceFile } });
    await server.peer.initialize();
    await server.peer.call('thread/list', {});
    const { beforeFirstOutput, all } = builtModules(traceFile);
    // The entry is one file (scripts/build.mjs): each further module before the answer would cost its own load.
    expect(beforeFirstOutput.map((file) => path.basename(file))).toEqual(['cli.js']);
    // initialize is answered before the command itself loads (first-answer.ts); it loads right after.
    const isCommand = (file: string) => path.basename(file) === 'app-server-command.js';
    expect(beforeFirstOutput.some(isCommand)).toBe(false);
    expect(all.some(isCommand)).toBe(true);
    // zod's core names its base type; the bundle holds it where zod is.
    const isZod = (code: string) => code.includes('"$ZodType"');
    expect(isZod(codeOf(beforeFirstOutput))).toBe(false);
    expect(declaredMessages(beforeFirstOutput)).toBe(0);
    expect(isZod(codeOf(all))).toBe(true);
    // The whole protocol once another request came (the count is every declaration in shared/protocol).
    expect(declaredMessages(all)).toBeGreaterThan(100);
    server.endInput();
    expect((await server.exited).code).toBe(0);
  });


  it('answers initialize and thread requests without the keychain or ws, a turn without the OpenAI SDK; the first command that is not plain the shell parser', async () => {
    const { home } = stdio.makeHome('wheelhouse-startup-');
    const traceFile = path.join(home, 'modules.log');
    const server = stdio.start(home, {
      nodeArgs: ['--import', tracer],
      env: { WHEELHOUSE_TRACE_MODULES: traceFile },
    });
    await server.peer.initialize();
    const { thread } = await server.peer.call('thread/start', { cwd: home });
    await server.peer.call('thread/list', {});
    await server.peer.call('thread/read', { threadId: thread.id, includeTurns: true });
    expect(loadedPackages(traceFile)).toEqual(['better-sqlite3']);

    stdio.mock.enqueue([{ type: 'text', text: 'Hello.' }, { type: 'finish' }]);
    await server.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await server.peer.inbox.notification('turn/completed');
    // Test processes keep keys in the home's private file (WHEELHOUSE_KEY_STORAGE=file, so no test touches the
    // person's keychain): the keychain addon is never loaded at all.
    expect(loadedPackages(traceFile)).toEqual(['better-sqlite3']);

    // The shell parser (mvdan-sh, ~22 MB) waits for the first command that is not plain.
    const loadsShellParser = () => fs.readFileSync(traceFile, 'utf8').includes('/chunks/mvdan-sh-');
    stdio.mock.enqueue(execCall('ls -la && pwd', {}, 'call_plain'), textReply('Listed.'));
    await server.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'list' }] });
    expect((await commandItem(server.peer, 'item/completed')).status).toBe('completed');
    await server.peer.inbox.notification('turn/completed');
    expect(loadsShellParser()).toBe(false);
    stdio.mock.enqueue(execCall('echo *', {}, 'call_glob'), textReply('Globbed.'));
    await server.peer.call('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'glob' }] });
    expect((await commandItem(server.peer, 'item/completed')).status).toBe('completed');
    await server.peer.inbox.notification('turn/completed');
    expect(loadsShellParser()).toBe(true);
    server.endInput();
    expect((await server.exited).code).toBe(0);
  });
});
