/**
 * Reading mvdan-sh's syntax tree through GopherJS's own representation of Go
 * values (mvdan-sh is Go compiled to JavaScript by GopherJS, and its version is
 * pinned). A pointer to a struct is a JS object with the Go field names whose
 * constructor's `string` is the Go type ("*syntax.Lit"); a nil pointer is the
 * type's `nil` object; a slice is `{ $array, $offset, $length }`; a Go string is
 * a JS string holding UTF-8 bytes, one per character.
 */
export interface GoNode {
  readonly [field: string]: unknown;
}

interface GoConstructor {
  readonly string?: unknown;
  readonly nil?: unknown;
}

interface GoSlice {
  readonly $array: readonly unknown[];
  readonly $offset: number;
  readonly $length: number;
}

/** A non-nil pointer to a struct of mvdan-sh's syntax package. */
export function isGoNode(value: unknown): value is GoNode {
  if (value === null || typeof value !== 'object') return false;
  const constructor = (value as { constructor?: GoConstructor }).constructor;
  return typeof constructor?.string === 'string' && constructor.string.startsWith('*syntax.') && value !== constructor.nil;
}

/** "Lit" for a `*syntax.Lit`. */
export function goTypeName(node: GoNode): string {
  const name = (node.constructor as GoConstructor).string as string;
  return name.slice(name.indexOf('.') + 1);
}

export function goList(slice: unknown): GoNode[] {
  if (!slice || typeof slice !== 'object' || !('$array' in slice)) return [];
  const { $array, $offset, $length } = slice as GoSlice;
  const out: GoNode[] = [];
  for (let index = 0; index < $length; index += 1) {
    const item = $array[$offset + index];
    if (isGoNode(item)) out.push(item);
  }
  return out;
}

/** Go strings are UTF-8 bytes, one per JS character; decode when there are non-ASCII bytes. */
export function goString(value: unknown): string {
  if (typeof value !== 'string') return '';
  return /[\x80-\xff]/.test(value) ? Buffer.from(value, 'latin1').toString('utf8') : value;
}
