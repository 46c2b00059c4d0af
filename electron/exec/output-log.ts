import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../store/private-files.js';
import { ExecError } from './exec-error.js';

/**
 * One process's output on disk, owner-only (0600), written synchronously in
 * the same order subscribers see it, so what a client was told is already in
 * the file (a crash loses nothing that was shown). At its cap it writes a
 * visible marker and keeps nothing more.
 */
export class OutputLog {
  private fd: number | null;
  private written = 0;
  /** The file's length: output kept plus markers. */
  private size = 0;
  private full = false;

  private constructor(
    readonly path: string,
    fd: number,
    private readonly capBytes: number,
  ) {
    this.fd = fd;
  }

  static create(dir: string, name: string, capBytes = Number.POSITIVE_INFINITY): OutputLog {
    const file = path.join(dir, `${name}.log`);
    try {
      // Output may hold anything a command printed: owner-only, like the rest of the home.
      ensurePrivateDir(dir);
      // 'wx': a fresh file, never someone else's; the mode applies because it is created here.
      return new OutputLog(file, fs.openSync(file, 'wx', 0o600), capBytes);
    } catch (error) {
      throw new ExecError('log-failed', `cannot create the output log ${file}: ${(error as Error).message}`);
    }
  }

  /** Output bytes kept (markers not counted). */
  get bytesWritten(): number {
    return this.written;
  }

  /**
   * Appends output, up to the cap; the first write over it is cut there and
   * marked. Returns the file offset the bytes were written at when all of them
   * were kept, else null.
   */
  write(data: Buffer): number | null {
    if (this.fd === null || this.full) return null;
    const at = this.size;
    const room = this.capBytes - this.written;
    const kept = data.length > room ? data.subarray(0, room) : data;
    this.append(kept);
    this.written += kept.length;
    if (kept.length < data.length) {
      this.full = true;
      this.append(Buffer.from(`\n[wheelhouse: log truncated here — its ${this.capBytes}-byte cap was reached; later output is not kept]\n`));
      return null;
    }
    return at;
  }

  /** A line of our own (a marker), unless the log is already full. */
  note(text: string): void {
    if (this.fd !== null && !this.full) this.append(Buffer.from(text));
  }

  private append(buffer: Buffer): void {
    let offset = 0;
    while (offset < buffer.length) offset += fs.writeSync(this.fd!, buffer, offset, buffer.length - offset);
    this.size += buffer.length;
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
