import path from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { WorkspaceFilesError, type DirectoryEntry, type FileFacts, type FileKind, type WorkspaceFiles } from '../../files/workspace-files.js';
import type { SshConnection } from './ssh-connection.js';

/** How an ssh2 SFTP request answers. */
type Done<T> = (error: Error | null | undefined, value: T) => void;

/** SFTP's status codes (draft-ietf-secsh-filexfer-02) that mean "nothing there". */
const NO_SUCH_FILE = 2;
/** Bytes asked for by one SFTP read or write (OpenSSH's sftp-server serves up to 256 KiB). */
const CHUNK_BYTES = 32 * 1024;

/**
 * The files of an SSH machine, over the SFTP session of its shared
 * connection: paths are the machine's (POSIX), symlinks are resolved there
 * (`realpath` is asked of the server), and a rename replaces its target in
 * one step (OpenSSH's posix-rename). An operation cut off by a dropped
 * connection fails as `lost`.
 */
export class SftpFiles implements WorkspaceFiles {
  readonly paths = path.posix;

  constructor(
    private readonly connection: SshConnection,
    readonly where: string,
  ) {}

  async realpath(file: string): Promise<string> {
    const real = await this.call(`resolve ${file}`, (sftp, done: Done<string>) => sftp.realpath(file, done));
    // OpenSSH resolves a missing last part too: what is not there does not exist.
    if ((await this.stat(real)) === null) throw new WorkspaceFilesError('missing', `${file} does not exist on ${this.where}`);
    return real;
  }

  lstat(file: string): Promise<FileFacts | null> {
    return this.facts(file, (sftp, done) => sftp.lstat(file, done));
  }

  stat(file: string): Promise<FileFacts | null> {
    return this.facts(file, (sftp, done) => sftp.stat(file, done));
  }

  async readFile(file: string, maxBytes = Number.MAX_SAFE_INTEGER): Promise<Buffer> {
    const handle = await this.call(`open ${file}`, (sftp, done: Done<Buffer>) => sftp.open(file, 'r', done));
    try {
      const { size } = await this.call(`read ${file}`, (sftp, done: Done<Stats>) => sftp.fstat(handle, done));
      const buffer = Buffer.alloc(Math.min(size, maxBytes));
      let filled = 0;
      while (filled < buffer.length) {
        const length = Math.min(CHUNK_BYTES, buffer.length - filled);
        const read = await this.call(`read ${file}`, (sftp, done: Done<number>) =>
          sftp.read(handle, buffer, filled, length, filled, (error, bytes) => done(error, bytes)),
        );
        if (read === 0) break;
        filled += read;
      }
      return buffer.subarray(0, filled);
    } finally {
      await this.close(handle);
    }
  }

  async readDirectory(dir: string): Promise<readonly DirectoryEntry[]> {
    const entries = await this.call(`list ${dir}`, (sftp, done: Done<{ filename: string; attrs: Stats }[]>) => sftp.readdir(dir, done));
    return entries.map((entry) => ({ name: entry.filename, kind: kindOf(entry.attrs) }));
  }

  async makeDirectory(dir: string): Promise<void> {
    const missing: string[] = [];
    let at = dir;
    while ((await this.stat(at)) === null) {
      missing.unshift(at);
      const parent = path.posix.dirname(at);
      if (parent === at) break;
      at = parent;
    }
    for (const folder of missing) await this.call(`make the folder ${folder}`, (sftp, done: Done<void>) => sftp.mkdir(folder, (error) => done(error, undefined)));
  }

  async writeNew(file: string, content: Buffer, mode: number): Promise<void> {
    const handle = await this.call(`create ${file}`, (sftp, done: Done<Buffer>) => sftp.open(file, 'wx', { mode }, done));
    try {
      for (let offset = 0; offset < content.length; offset += CHUNK_BYTES) {
        const length = Math.min(CHUNK_BYTES, content.length - offset);
        await this.call(`write ${file}`, (sftp, done: Done<void>) => sftp.write(handle, content, offset, length, offset, (error) => done(error, undefined)));
      }
    } finally {
      await this.close(handle);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    await this.call(`move ${from} to ${to}`, (sftp, done: Done<void>) => sftp.ext_openssh_rename(from, to, (error) => done(error, undefined)));
  }

  async remove(file: string): Promise<void> {
    try {
      await this.call(`remove ${file}`, (sftp, done: Done<void>) => sftp.unlink(file, (error) => done(error, undefined)));
    } catch (error) {
      if (!(error instanceof WorkspaceFilesError && error.code === 'missing')) throw error;
    }
  }

  private async facts(file: string, ask: (sftp: SFTPWrapper, done: Done<Stats>) => void): Promise<FileFacts | null> {
    try {
      const stats = await this.call(`look at ${file}`, ask);
      return { kind: kindOf(stats), size: stats.size, mode: stats.mode & 0o7777 };
    } catch (error) {
      if (error instanceof WorkspaceFilesError && error.code === 'missing') return null;
      throw error;
    }
  }

  private async close(handle: Buffer): Promise<void> {
    await this.call('close a file', (sftp, done: Done<void>) => sftp.close(handle, (error) => done(error, undefined))).catch(() => undefined);
  }

  /** One SFTP request, its error in words: `missing`, `lost` when the connection dropped, else `failed`. */
  private async call<T>(what: string, request: (sftp: SFTPWrapper, done: Done<T>) => void): Promise<T> {
    const { host } = this.connection.target;
    let sftp: SFTPWrapper;
    try {
      sftp = await this.connection.sftp();
    } catch (error) {
      throw new WorkspaceFilesError('lost', `cannot reach the files on ${this.where} (${host}): ${(error as Error).message}`);
    }
    let closed = false;
    const onClose = () => {
      closed = true;
    };
    sftp.once('close', onClose);
    try {
      return await new Promise<T>((resolve, reject) => {
        try {
          request(sftp, (error, value) => (error ? reject(error) : resolve(value)));
        } catch (thrown) {
          reject(thrown as Error);
        }
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === NO_SUCH_FILE) throw new WorkspaceFilesError('missing', `cannot ${what} on ${this.where}: nothing is there`);
      if (closed || this.connection.state !== 'connected') {
        throw new WorkspaceFilesError('lost', `the connection to ${this.where} (${host}) dropped while trying to ${what}`);
      }
      throw new WorkspaceFilesError('failed', `cannot ${what} on ${this.where}: ${(error as Error).message}`);
    } finally {
      sftp.removeListener('close', onClose);
    }
  }
}

function kindOf(stats: Stats): FileKind {
  return stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
}
