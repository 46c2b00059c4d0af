/**
 * A bounded view of a command's output for the model: the first and last
 * bytes with a marker saying how much lies between. Only head + tail are
 * kept in memory however much the command prints; the whole output is on disk.
 */
export class HeadTailBuffer {
  private head: Buffer[] = [];
  private headLength = 0;
  private tail: Buffer[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLength < this.headBytes) {
      const take = Math.min(this.headBytes - this.headLength, rest.length);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headLength += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.tailBytes === 0) return;
    // The tail keeps views, not copies: a flood replaces it with every batch, and its chunks are
    // never written to again, so a copy per batch would only feed the garbage collector.
    if (rest.length >= this.tailBytes) {
      this.tail = [rest.subarray(rest.length - this.tailBytes)];
      this.tailLength = this.tailBytes;
      return;
    }
    this.tail.push(rest);
    this.tailLength += rest.length;
    while (this.tailLength - this.tail[0]!.length >= this.tailBytes) this.tailLength -= this.tail.shift()!.length;
  }

  /** Bytes between head and tail that are not kept. */
  get omittedBytes(): number {
    return this.total - this.headLength - Math.min(this.tailLength, this.tailBytes);
  }

  /** Head, the omission marker (when anything was omitted), and tail, as UTF-8 text. */
  text(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailBytes) tail = tail.subarray(tail.length - this.tailBytes);
    const omitted = this.omittedBytes;
    if (omitted === 0) return Buffer.concat([head, tail]).toString('utf8');
    return `${utf8Head(head)}\n…${omitted} bytes omitted…\n${utf8Tail(tail)}`;
  }

  reset(): void {
    this.head = [];
    this.tail = [];
    this.headLength = this.tailLength = this.total = 0;
  }
}

/** `text` cut to at most `maxBytes` of UTF-8 (half head, half tail) with a marker. */
export function boundedView(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const buffer = new HeadTailBuffer(Math.ceil(maxBytes / 2), Math.floor(maxBytes / 2));
  buffer.push(bytes);
  return buffer.text();
}

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80;

/** Decodes a head cut at an arbitrary byte, dropping a trailing partial character. */
function utf8Head(bytes: Buffer): string {
  let end = bytes.length;
  let back = 0;
  while (end - back - 1 >= 0 && back < 3 && isContinuation(bytes[end - back - 1]!)) back += 1;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < needed) end -= back + 1;
  }
  return bytes.toString('utf8', 0, end);
}

/** Decodes a tail cut at an arbitrary byte, dropping a leading partial character. */
function utf8Tail(bytes: Buffer): string {
  let start = 0;
  while (start < bytes.length && start < 3 && isContinuation(bytes[start]!)) start += 1;
  return bytes.toString('utf8', start);
}
