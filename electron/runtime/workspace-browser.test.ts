import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, RpcError } from '../../shared/protocol/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { RequestContext } from './context.js';
import { createTestRuntime } from '../../test-support/test-runtime.js';
import { listDirectory } from './workspace-browser.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

/** A small tree: two projects, a hidden folder, a file and a link to a folder. */
function tree(): string {
  const root = temp.make('wh-browse-');
  for (const dir of ['zeta', 'Alpha', 'project 10', 'project 9', '.cache']) fs.mkdirSync(path.join(root, dir));
  fs.writeFileSync(path.join(root, 'notes.txt'), 'not a folder');
  fs.symlinkSync(path.join(root, 'zeta'), path.join(root, 'linked'));
  return root;
}

async function failure(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(error)}`);
  return error;
}

describe('the project folder browser', () => {
  it('lists folders only, in natural order, hiding dot folders unless asked', async () => {
    const root = tree();
    const listing = await listDirectory({ path: root });
    expect(listing.path).toBe(root);
    expect(listing.parent).toBe(path.dirname(root));
    expect(listing.entries.map((e) => e.name)).toEqual(['Alpha', 'linked', 'project 9', 'project 10', 'zeta']);
    expect(listing.entries[0]).toEqual({ name: 'Alpha', path: path.join(root, 'Alpha') });
    expect(listing.truncated).toBe(false);
    const all = await listDirectory({ path: root, showHidden: true });
    expect(all.entries.map((e) => e.name)).toContain('.cache');
  });

  it('starts at home, and reads ~ and relative paths against it', async () => {
    const home = tree();
    expect((await listDirectory({}, { home })).path).toBe(home);
    expect((await listDirectory({ path: '~/Alpha' }, { home })).path).toBe(path.join(home, 'Alpha'));
    expect((await listDirectory({ path: 'zeta' }, { home })).path).toBe(path.join(home, 'zeta'));
    expect((await listDirectory({ path: `${home}/zeta/../Alpha/` }, { home })).path).toBe(path.join(home, 'Alpha'));
  });

  it('has no parent at the filesystem root', async () => {
    const listing = await listDirectory({ path: path.parse(process.cwd()).root });
    expect(listing.parent).toBeNull();
  });

  it('answers a missing folder or a file with a typed error naming the path', async () => {
    const root = tree();
    const missing = await failure(listDirectory({ path: path.join(root, 'nope') }));
    expect(missing.code).toBe(ErrorCode.InvalidRequest);
    expect(missing.message).toMatch(/no folder at .*nope/);
    expect(missing.data).toEqual({ reason: 'workspace.notFound', path: path.join(root, 'nope') });
    const file = await failure(listDirectory({ path: path.join(root, 'notes.txt') }));
    expect(file.data).toMatchObject({ reason: 'workspace.notDirectory' });
  });

  it('says plainly when a folder cannot be opened', async (ctx) => {
    if (process.getuid?.() === 0) ctx.skip('running as root: every folder can be opened, so none can be made unreadable');
    const root = tree();
    const locked = path.join(root, 'Alpha');
    fs.chmodSync(locked, 0o000);
    try {
      const error = await failure(listDirectory({ path: locked }));
      expect(error.data).toMatchObject({ reason: 'workspace.unreadable' });
    } finally {
      fs.chmodSync(locked, 0o755);
    }
  });

  it('is served by the runtime, with bad params refused before the disk is touched', async () => {
    const home = temp.make();
    const runtime = createTestRuntime({ home, validateResults: true, defaults: { cwd: home } });
    try {
      const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };
      const root = tree();
      const listing = await runtime.dispatcher.call('workspace/directory/list', { path: root }, ctx);
      expect(listing.entries.map((e) => e.name)).toContain('Alpha');
      const bad = await failure(runtime.dispatcher.call('workspace/directory/list', { path: '' }, ctx));
      expect(bad.code).toBe(ErrorCode.InvalidParams);
    } finally {
      runtime.close();
    }
  });
});
