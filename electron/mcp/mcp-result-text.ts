/**
 * What the model reads back from an MCP tool result. Text blocks go as they
 * are; images, audio and embedded blobs are named (a tool message carries
 * text only); resource links keep their URI so the model can read them;
 * structured content is sent as JSON when the server gave no text.
 */
export function mcpResultText(result: { content: readonly unknown[]; structuredContent?: unknown }): string {
  const parts: string[] = [];
  for (const block of result.content) parts.push(blockText(block));
  const hasText = parts.some((part) => part.length > 0);
  if (result.structuredContent !== undefined && result.structuredContent !== null && !hasText) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const text = parts.filter((part) => part.length > 0).join('\n');
  return text.length > 0 ? text : '(the tool returned no content)';
}

function blockText(block: unknown): string {
  if (typeof block !== 'object' || block === null) return '';
  const b = block as Record<string, unknown>;
  const str = (key: string) => (typeof b[key] === 'string' ? (b[key] as string) : '');
  switch (b.type) {
    case 'text':
      return str('text');
    case 'image':
    case 'audio':
      return `[${b.type} ${str('mimeType') || 'unknown type'}, ${Math.round((str('data').length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[resource link: ${str('uri')}${str('name') ? ` (${str('name')})` : ''}${str('description') ? ` — ${str('description')}` : ''}]`;
    case 'resource': {
      const resource = (b.resource ?? {}) as Record<string, unknown>;
      const uri = typeof resource.uri === 'string' ? resource.uri : '';
      if (typeof resource.text === 'string') return `[resource ${uri}]\n${resource.text}`;
      return `[resource ${uri}: ${typeof resource.mimeType === 'string' ? resource.mimeType : 'binary'}]`;
    }
    default:
      return JSON.stringify(block);
  }
}
