import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../store/private-files.js';
import { ExecError } from './exec-error.js';

/**
 * One process's output on disk, owner-only (0600), written synchronously in
 * the same order subscribers see it, so what a client was told is already in
 * the file (a crash loses nothing that was shown). Capped by the pipeline,
 * which writes a visible marker where the cap cut the output.
 */
export class OutputLog {
  private fd: number | null;
  private written = 0;

  private constructor(
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static create(dir: string, name: string): OutputLog {
    const file = path.join(dir, `${name}.log`);
    try {
      // Output may hold anything a command printed: owner-only, like the rest of the home.
      ensurePrivateDir(dir);
      // 'wx': a fresh file, never someone else's; the mode applies because it is created here.
      return new OutputLog(file, fs.openSync(file, 'wx', 0o600));
    } catch (error) {
      throw new ExecError('log-failed', `cannot create the output log ${file}: ${(error as Error).message}`);
    }
  }

  get bytesWritten(): number {
    return this.written;
  }

  write(data: Buffer | string): void {
    if (this.fd === null) return;
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < buffer.length) offset += fs.writeSync(this.fd, buffer, offset, buffer.length - offset);
    this.written += buffer.length;
  }

  close(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Reads `length` bytes of a log from `offset` (fewer at its end). */
export function readLog(file: string, offset: number, length: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, length));
    const read = fs.readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}
