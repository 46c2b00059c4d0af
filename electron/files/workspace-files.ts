import type path from 'node:path';

/**
 * The files of the folder a thread works in, wherever it is: this computer
 * (local-files.ts) or an SSH machine over SFTP (remote/sftp-files.ts). The
 * patch engine and the file tools are written once against this; paths are
 * absolute in the machine's own flavour (`paths`).
 */
export interface WorkspaceFiles {
  /** Where the files are, for words: "this computer" or the machine's name. */
  readonly where: string;
  /** Path arithmetic of that machine (POSIX on an SSH host). */
  readonly paths: path.PlatformPath;
  /** The path with every symlink resolved, on that machine; `missing` when it does not exist. */
  realpath(file: string): Promise<string>;
  /** What is at `file` itself (a symlink is `symlink`); null when nothing is. */
  lstat(file: string): Promise<FileFacts | null>;
  /** What `file` leads to, through symlinks; null when nothing is. */
  stat(file: string): Promise<FileFacts | null>;
  /** At most `maxBytes` bytes from the start of a file. */
  readFile(file: string, maxBytes?: number): Promise<Buffer>;
  readDirectory(dir: string): Promise<readonly DirectoryEntry[]>;
  /** Makes `dir` and its missing parents. */
  makeDirectory(dir: string): Promise<void>;
  /** Creates `file`, which must not exist yet, with `content` and `mode`. */
  writeNew(file: string, content: Buffer, mode: number): Promise<void>;
  /** Replaces `to` with `from` in one step (POSIX rename). */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file or symlink; nothing there is fine. */
  remove(file: string): Promise<void>;
}

export interface FileFacts {
  readonly kind: FileKind;
  readonly size: number;
  /** Permission bits (0o7777). */
  readonly mode: number;
}

export type FileKind = 'file' | 'directory' | 'symlink' | 'other';

export interface DirectoryEntry {
  readonly name: string;
  readonly kind: FileKind;
}

/**
 * A file operation that failed: `missing` (nothing there), `lost` (the
 * connection to the machine dropped; nothing after it was done), or `failed`.
 */
export class WorkspaceFilesError extends Error {
  constructor(
    readonly code: 'missing' | 'lost' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'WorkspaceFilesError';
  }
}
