import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalFiles } from '../../files/local-files.js';
import { PatchError, applyPatch, preparePatch } from './apply-patch.js';

const local = new LocalFiles();

const folders: string[] = [];
function workspace(files: Record<string, string> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wheelhouse-patch-')));
  folders.push(root);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** Every file under root with its content, for "nothing changed" checks. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[path.relative(root, full)] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return out;
}

const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

async function patchError(promise: Promise<unknown>): Promise<PatchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return error as PatchError;
  }
  throw new Error('the patch applied but should not have');
}

describe('applyPatch', () => {
  it('adds, updates, deletes and moves files, and describes each change as Codex does', async () => {
    const root = workspace({ 'src/a.ts': 'one\ntwo\nthree\n', 'old.txt': 'bye\n', 'move-me.txt': 'x\ny\n' });
    const changes = await applyPatch(local, root, patch(
      '*** Add File: docs/new.md',
      '+# Title',
      '+body',
      '*** Update File: src/a.ts',
      '@@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '*** Delete File: old.txt',
      '*** Update File: move-me.txt',
      '*** Move to: moved/there.txt',
      '@@',
      ' x',
      '-y',
      '+z',
    ));
    expect(snapshot(root)).toEqual({ 'docs/new.md': '# Title\nbody\n', 'src/a.ts': 'one\nTWO\nthree\n', 'moved/there.txt': 'x\nz\n' });
    expect(changes).toEqual([
      { path: path.join(root, 'docs/new.md'), kind: { type: 'add' }, diff: '# Title\nbody\n' },
      { path: path.join(root, 'src/a.ts'), kind: { type: 'update', move_path: null }, diff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n' },
      { path: path.join(root, 'old.txt'), kind: { type: 'delete' }, diff: 'bye\n' },
      { path: path.join(root, 'move-me.txt'), kind: { type: 'update', move_path: path.join(root, 'moved/there.txt') }, diff: '@@ -1,2 +1,2 @@\n x\n-y\n+z\n' },
    ]);
  });

  it('applies several hunks with @@ context lines to one file', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    const root = workspace({ 'f.txt': `${['function a() {', ...lines, 'function b() {', ...lines].join('\n')}\n` });
    const changes = await applyPatch(local, root, patch(
      '*** Update File: f.txt',
      '@@ function a() {',
      ' line 2',
      '-line 3',
      '+line three',
      '@@ function b() {',
      ' line 2',
      '-line 3',
      '+line THREE',
      ' line 4',
    ));
    const after = fs.readFileSync(path.join(root, 'f.txt'), 'utf8').split('\n');
    expect(after[3]).toBe('line three');
    expect(after[34]).toBe('line THREE');
    expect(after.filter((line) => line === 'line 3')).toEqual([]);
    expect(changes[0]!.diff.match(/^@@/gm)).toHaveLength(2);
    expect(changes[0]!.diff).toContain('@@ -32,7 +32,7 @@\n function b() {\n line 1\n line 2\n-line 3\n+line THREE\n line 4\n line 5\n line 6\n');
  });

  it('changes nothing when one hunk does not match, and names the file, hunk and expected lines', async () => {
    const files = { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'one\ntwo\n' };
    const root = workspace(files);
    const error = await patchError(applyPatch(local, root, patch(
      '*** Add File: c.txt',
      '+new',
      '*** Update File: a.txt',
      '@@',
      '-alpha',
      '+ALPHA',
      '*** Update File: b.txt',
      '@@',
      '-one',
      '+ONE',
      '@@',
      '-three',
      '+THREE',
    )));
    expect(error.code).toBe('hunk_mismatch');
    expect(error.details).toMatchObject({ path: 'b.txt', hunkIndex: 2, expected: ['three'] });
    expect(error.message).toMatch(/hunk 2 of b\.txt does not apply/);
    expect(snapshot(root)).toEqual(files);
  });

  it('matches lines that differ only in whitespace or typographic punctuation, as Codex does', async () => {
    const root = workspace({ 'a.py': 'def f():   \n    return "x – y"\n' });
    await applyPatch(local, root, patch('*** Update File: a.py', '@@', ' def f():', '-  return "x - y"', '+    return "x"'));
    // The matched lines are replaced by the patch's own lines, context included (as in Codex).
    expect(fs.readFileSync(path.join(root, 'a.py'), 'utf8')).toBe('def f():\n    return "x"\n');
  });

  it('keeps CRLF files CRLF', async () => {
    const root = workspace({ 'win.txt': 'first\r\nsecond\r\nthird\r\n' });
    await applyPatch(local, root, patch('*** Update File: win.txt', '@@', ' first', '-second', '+2nd', '+extra', ' third'));
    expect(fs.readFileSync(path.join(root, 'win.txt'), 'utf8')).toBe('first\r\n2nd\r\nextra\r\nthird\r\n');
  });

  it('appends at the end with *** End of File and pure additions', async () => {
    const root = workspace({ 'a.txt': 'x\ny\nx\ny\n' });
    await applyPatch(local, root, patch('*** Update File: a.txt', '@@', ' x', '-y', '+Y', '*** End of File'));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('x\ny\nx\nY\n');
    await applyPatch(local, root, patch('*** Update File: a.txt', '@@', '+tail'));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('x\ny\nx\nY\ntail\n');
  });

  it('refuses paths outside the workspace, including through symlinks, and writes nothing', async () => {
    const outside = workspace({ 'secret.txt': 'keep\n' });
    const root = workspace({ 'a.txt': 'a\n' });
    fs.symlinkSync(outside, path.join(root, 'link'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'file-link'));
    fs.symlinkSync(path.join(outside, 'nowhere.txt'), path.join(root, 'dangling'));
    const attempts = [
      patch('*** Add File: ../escape.txt', '+x'),
      patch(`*** Add File: ${path.join(outside, 'abs.txt')}`, '+x'),
      patch('*** Add File: link/new.txt', '+x'),
      patch('*** Update File: file-link', '@@', '-keep', '+stolen'),
      patch('*** Delete File: link/secret.txt'),
      patch('*** Add File: dangling', '+x'),
      patch('*** Update File: a.txt', '*** Move to: ../moved.txt', '@@', '-a', '+b'),
    ];
    for (const text of attempts) {
      const error = await patchError(applyPatch(local, root, text));
      expect(error.code, text).toBe('path_outside_workspace');
    }
    expect(snapshot(outside)).toEqual({ 'secret.txt': 'keep\n' });
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(fs.existsSync(path.join(path.dirname(root), 'escape.txt'))).toBe(false);
  });

  it('reports a missing file and an invalid patch with its line, changing nothing', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const missing = await patchError(applyPatch(local, root, patch('*** Delete File: a.txt', '*** Update File: nope.txt', '@@', '-x', '+y')));
    expect(missing.code).toBe('file_not_found');
    expect(missing.message).toMatch(/nope\.txt does not exist/);
    const invalid = await patchError(applyPatch(local, root, patch('*** Update File: a.txt', '@@', ' a', 'oops')));
    expect(invalid.code).toBe('invalid_patch');
    expect(invalid.details.line).toBe(5);
    expect(snapshot(root)).toEqual({ 'a.txt': 'a\n' });
  });

  it('sees earlier operations of the same patch', async () => {
    const root = workspace({ 'a.txt': '1\n2\n' });
    await applyPatch(local, root, patch('*** Update File: a.txt', '@@', '-1', '+one', '*** Update File: a.txt', '@@', '-2', '+two'));
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    const error = await patchError(applyPatch(local, root, patch('*** Delete File: a.txt', '*** Update File: a.txt', '@@', '-one', '+1')));
    expect(error.message).toMatch(/deleted earlier in this patch/);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('prepares a patch for the approval request without writing', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const prepared = await preparePatch(local, root, patch('*** Update File: a.txt', '@@', '-a', '+b'));
    expect(prepared.changes[0]!.diff).toBe('@@ -1,1 +1,1 @@\n-a\n+b\n');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('deletes a symlink itself, not the file it points to', async () => {
    const root = workspace({ 'real.txt': 'data\n' });
    fs.symlinkSync(path.join(root, 'real.txt'), path.join(root, 'alias.txt'));
    const changes = await applyPatch(local, root, patch('*** Delete File: alias.txt'));
    expect(changes).toEqual([{ path: path.join(root, 'alias.txt'), kind: { type: 'delete' }, diff: 'data\n' }]);
    expect(snapshot(root)).toEqual({ 'real.txt': 'data\n' });
  });

  it('keeps the mode of an updated file', async () => {
    const root = workspace({ 'run.sh': 'echo a\n' });
    fs.chmodSync(path.join(root, 'run.sh'), 0o755);
    await applyPatch(local, root, patch('*** Update File: run.sh', '@@', '-echo a', '+echo b'));
    expect(fs.statSync(path.join(root, 'run.sh')).mode & 0o777).toBe(0o755);
  });
});
