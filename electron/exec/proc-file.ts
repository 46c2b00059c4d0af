import fs from 'node:fs';

/**
 * Reads a small file of /proc through one buffer kept for the purpose. /proc's files report a
 * size of 0, for which fs.readFileSync allocates a fresh 64 KB buffer per read: a scan of every
 * process's `stat` (process-tree.ts, once per job and per command ended) then left 64 KB times
 * the number of processes of garbage outside V8's heap, and glibc kept the pages it took for it:
 * 500 jobs grew the process's malloc heap by 12 MB (docs/performance.md, "Memory over a soak").
 * The buffer grows only for a file larger than it (a long command line) and stays at that size.
 */
let scratch = Buffer.allocUnsafe(4096);

export function readProcFile(file: string, encoding: BufferEncoding): string {
  const fd = fs.openSync(file, 'r');
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const larger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(larger, 0, 0, length);
        scratch = larger;
      }
      const read = fs.readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.toString(encoding, 0, length);
      length += read;
    }
  } finally {
    fs.closeSync(fd);
  }
}
