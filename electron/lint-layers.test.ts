import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../test-support/paths.js';

/**
 * The layering rules live in eslint.config.js (`npm run lint`, a step of
 * `npm test`); these cases prove each rule fires on what it forbids and
 * stays quiet on what is allowed, for every import form.
 */
const eslint = new ESLint({ cwd: repoRoot });

async function ruleHits(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  const messages = result?.messages ?? [];
  const fatal = messages.find((m) => m.fatal);
  if (fatal) throw new Error(`the case does not parse: ${fatal.message}`);
  return messages.map((m) => m.ruleId ?? m.message);
}

const CASES: ReadonlyArray<{ file: string; code: string; refused: boolean }> = [
  // The Electron-free layers.
  { file: 'electron/runtime/a.ts', code: "import { app } from 'electron';", refused: true },
  { file: 'electron/store/a.ts', code: "import type { App } from 'electron';", refused: true },
  { file: 'electron/server/a.ts', code: "export { app } from 'electron';", refused: true },
  { file: 'electron/exec/a.ts', code: "import { shell } from 'electron';", refused: true },
  { file: 'electron/config/a.ts', code: "const e = await import('electron'); export { e };", refused: true },
  { file: 'electron/secrets/a.ts', code: "import { x } from '../main/safe-storage-secrets.js';", refused: true },
  { file: 'electron/runtime/turns/a.ts', code: "import fs from 'node:fs'; export { fs };", refused: false },
  // No cycles: config, secrets and the stores sit below the core; secrets and file helpers below config.
  { file: 'electron/config/a.ts', code: "import type { RequestContext } from '../runtime/context.js';", refused: true },
  { file: 'electron/secrets/a.ts', code: "import { x } from '../config/config-file.js';", refused: true },
  { file: 'electron/files/a.ts', code: "import { x } from '../runtime/home.js';", refused: true },
  { file: 'electron/config/a.test.ts', code: "import { x } from '../runtime/runtime.js'; export { x };", refused: false },
  { file: 'electron/secrets/a.ts', code: "import { x } from '../files/atomic-write.js'; export { x };", refused: false },
  { file: 'electron/main/a.ts', code: "import { app } from 'electron'; export { app };", refused: false },
  // The renderer.
  { file: 'renderer/src/a.ts', code: "import fs from 'node:fs';", refused: true },
  { file: 'renderer/src/a.ts', code: "import { readFile } from 'fs/promises';", refused: true },
  { file: 'renderer/src/a.ts', code: "const m = await import('node:path'); export { m };", refused: true },
  { file: 'renderer/src/a.ts', code: "import Database from 'better-sqlite3';", refused: true },
  { file: 'renderer/src/views/a.tsx', code: "import { Runtime } from '../../../electron/runtime/runtime.js';", refused: true },
  { file: 'renderer/src/a.ts', code: "import { IPC_CHANNELS } from '../../shared/ipc.js'; export { IPC_CHANNELS };", refused: false },
  // shared/: the contract only.
  { file: 'shared/protocol/a.ts', code: "import { randomUUID } from 'node:crypto';", refused: true },
  { file: 'shared/protocol/a.ts', code: "import { useState } from 'react';", refused: true },
  { file: 'shared/protocol/methods/a.ts', code: "import { x } from '../../../electron/runtime/runtime.js';", refused: true },
  { file: 'shared/a.ts', code: "import { x } from '../test-support/memory-transport.js';", refused: true },
  { file: 'shared/protocol/a.ts', code: "import { z } from 'zod'; import { x } from './wire.js'; export { z, x };", refused: false },
  // Raw IPC only in the carrier and the preload.
  { file: 'electron/main/main.ts', code: "import { ipcMain } from 'electron'; export { ipcMain };", refused: true },
  { file: 'electron/main/main.ts', code: 'export const f = (w: { webContents: { ipc: object } }) => w.webContents.ipc;', refused: true },
  { file: 'renderer/src/a.ts', code: 'export const f = (e: { ipcRenderer: object }) => e.ipcRenderer;', refused: true },
  { file: 'electron/main/ipc-carrier.ts', code: 'export const f = (contents: { ipc: object }) => contents.ipc;', refused: false },
  { file: 'electron/preload/a.ts', code: "import { ipcRenderer } from 'electron'; export { ipcRenderer };", refused: false },
  // The layer table (LAYERS in eslint.config.js): a new cross-layer import fails.
  { file: 'electron/store/a.ts', code: "import { x } from '../model/create-model-client.js'; export { x };", refused: true },
  { file: 'electron/runtime/tools/a.ts', code: "import { x } from '../jobs/job-engine.js'; export { x };", refused: true },
  { file: 'electron/runtime/policy/a.ts', code: "export { x } from '../../mcp/mcp-manager.js';", refused: true },
  { file: 'shared/protocol/a.ts', code: "import { x } from '../policy/rules.js'; export { x };", refused: true },
  { file: 'renderer/src/format/a.ts', code: "import { x } from '../stores/toast-store.js'; export { x };", refused: true },
  { file: 'electron/runtime/a.ts', code: "import { x } from '../../test-support/paths.js'; export { x };", refused: true },
  { file: 'electron/runtime/jobs/a.ts', code: "import { x } from '../policy/judge-command.js'; export { x };", refused: false },
  // Inside the core, bottom-up: the loose files, approvals, the tools' runners, jobs, turns.
  { file: 'electron/runtime/a.ts', code: "import { x } from './turns/agent-tools.js'; export { x };", refused: true },
  { file: 'electron/runtime/approvals/a.ts', code: "import { x } from '../agent-commands/agent-command-runner.js'; export { x };", refused: true },
  { file: 'electron/runtime/jobs/a.ts', code: "import { x } from '../turns/turn-engine.js'; export { x };", refused: true },
  { file: 'electron/runtime/turns/a.ts', code: "import { x } from '../jobs/job-tools.js'; export { x };", refused: false },
  { file: 'electron/mcp/a.ts', code: "import type { X } from '../runtime/approvals/approval-broker.js'; export type { X };", refused: true },
  { file: 'electron/config/a.ts', code: "import { x } from '../mcp/mcp-manager.js'; export { x };", refused: true },
  { file: 'electron/runtime/jobs/a.test.ts', code: "import { x } from '../../../test-support/paths.js'; export { x };", refused: false },
  // Only electron/exec starts processes.
  { file: 'electron/runtime/a.ts', code: "import { spawn } from 'node:child_process'; export { spawn };", refused: true },
  { file: 'electron/server/a.ts', code: "const cp = await import('child_process'); export { cp };", refused: true },
  { file: 'electron/runtime/terminal/a.ts', code: "import pty from 'node-pty'; export { pty };", refused: true },
  { file: 'electron/exec/a.ts', code: "import { spawn } from 'node:child_process'; export { spawn };", refused: false },
  // No explicit any, anywhere.
  { file: 'bench/a.ts', code: 'export const x: any = 1;', refused: true },
  { file: 'electron/runtime/a.test.ts', code: 'export const f = (v: unknown) => v as Promise<any>;', refused: true },
];

describe('lint holds the layers', () => {
  it.each(CASES)('$file: $code', async ({ file, code, refused }) => {
    const hits = await ruleHits(file, code);
    if (refused) expect(hits.length).toBeGreaterThan(0);
    else expect(hits).toEqual([]);
  });
});
