import type { Thread } from '../../../shared/protocol/thread.js';

/** What a thread is called in lists and headers: its name, else its first words, else "Untitled thread". */
export function threadTitle(thread: Thread): string {
  if (thread.name) return thread.name;
  const preview = thread.preview.trim();
  return preview.length > 0 ? preview : 'Untitled thread';
}

/** Whether the title is a fallback rather than a name the person chose. */
export function isUntitled(thread: Thread): boolean {
  return !thread.name && thread.preview.trim().length === 0;
}

/** The last segment of a working directory, on any platform ("/" stays "/"). */
export function folderName(cwd: string): string {
  const trimmed = cwd.replace(/[\\/]+$/, '');
  if (trimmed.length === 0) return cwd;
  const parts = trimmed.split(/[\\/]/);
  return parts[parts.length - 1] || trimmed;
}
