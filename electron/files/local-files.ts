import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceFilesError, type DirectoryEntry, type FileFacts, type FileKind, type WorkspaceFiles } from './workspace-files.js';

/** This computer's files, through node:fs. */
export class LocalFiles implements WorkspaceFiles {
  readonly where = 'this computer';
  readonly paths = path;

  async realpath(file: string): Promise<string> {
    return fs.realpath(file).catch((error: unknown) => failure(error, file));
  }

  async lstat(file: string): Promise<FileFacts | null> {
    return fs.lstat(file).then(factsOf, (error: unknown) => absent(error, file));
  }

  async stat(file: string): Promise<FileFacts | null> {
    return fs.stat(file).then(factsOf, (error: unknown) => absent(error, file));
  }

  async readFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
    const handle = await fs.open(file, 'r').catch((error: unknown) => failure(error, file));
    try {
      const { size } = await handle.stat();
      const buffer = Buffer.alloc(Math.min(size, maxBytes));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async readDirectory(dir: string): Promise<readonly DirectoryEntry[]> {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch((error: unknown) => failure(error, dir));
    return entries.map((entry) => ({ name: entry.name, kind: entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other' }));
  }

  async makeDirectory(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true });
  }

  async writeNew(file: string, content: Buffer, mode: number): Promise<void> {
    await fs.writeFile(file, content, { flag: 'wx', mode });
  }

  async rename(from: string, to: string): Promise<void> {
    await fs.rename(from, to);
  }

  async remove(file: string): Promise<void> {
    await fs.rm(file, { force: true });
  }
}

function kindOf(stats: Stats): FileKind {
  return stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
}

function factsOf(stats: Stats): FileFacts {
  return { kind: kindOf(stats), size: stats.size, mode: stats.mode & 0o7777 };
}

function absent(error: unknown, file: string): null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  throw new WorkspaceFilesError('failed', `cannot look at ${file}: ${(error as Error).message}`);
}

function failure(error: unknown, file: string): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkspaceFilesError('missing', `${file} does not exist`);
  throw new WorkspaceFilesError('failed', `cannot read ${file}: ${(error as Error).message}`);
}
