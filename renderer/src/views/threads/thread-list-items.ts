import type { Thread } from '../../../../shared/protocol/thread.js';

/** Which block of the sidebar an item belongs to: a project's folder, or the archived section. */
export type ThreadListBlock = { readonly kind: 'project'; readonly folder: string; readonly name: string } | { readonly kind: 'archived' };

/** One line of the virtualised sidebar: a heading, a thread, or the archived section's "nothing" note. */
export type ThreadListItem =
  | { readonly kind: 'project-title'; readonly key: string; readonly block: ThreadListBlock & { kind: 'project' }; readonly first: boolean }
  | { readonly kind: 'thread'; readonly key: string; readonly block: ThreadListBlock; readonly thread: Thread }
  | { readonly kind: 'archived-title'; readonly key: string; readonly block: ThreadListBlock; readonly count: number }
  | { readonly kind: 'archived-empty'; readonly key: string; readonly block: ThreadListBlock };

const ARCHIVED: ThreadListBlock = { kind: 'archived' };

/**
 * The sidebar as one flat list (so only what is near the viewport needs to be
 * in the DOM): each project's heading followed by its threads, projects in the
 * order their newest thread comes, then the archived section when shown.
 */
export function threadListItems(
  active: readonly Thread[],
  archived: readonly Thread[],
  projectOfThread: Readonly<Record<string, string>>,
  showArchived: boolean,
): ThreadListItem[] {
  const items: ThreadListItem[] = [];
  byProject(active, projectOfThread).forEach(({ block, threads }, n) => {
    items.push({ kind: 'project-title', key: `project:${block.folder}`, block, first: n === 0 });
    for (const thread of threads) items.push({ kind: 'thread', key: thread.id, block, thread });
  });
  if (showArchived) {
    items.push({ kind: 'archived-title', key: 'archived', block: ARCHIVED, count: archived.length });
    if (archived.length === 0) items.push({ kind: 'archived-empty', key: 'archived-empty', block: ARCHIVED });
    for (const thread of archived) items.push({ kind: 'thread', key: thread.id, block: ARCHIVED, thread });
  }
  return items;
}

/** The index of the next thread (not a heading) after `from` in `direction`, or -1 at either end. */
export function nextThreadIndex(items: readonly ThreadListItem[], from: number, direction: 1 | -1): number {
  for (let index = from + direction; index >= 0 && index < items.length; index += direction) {
    if (items[index]!.kind === 'thread') return index;
  }
  return -1;
}

/** Threads by project folder (a separate copy counts as its project), in the order their newest thread comes. */
function byProject(threads: readonly Thread[], projectOfThread: Readonly<Record<string, string>>) {
  const groups = new Map<string, Thread[]>();
  for (const thread of threads) {
    const folder = projectOfThread[thread.id] ?? thread.cwd;
    const group = groups.get(folder);
    if (group) group.push(thread);
    else groups.set(folder, [thread]);
  }
  return [...groups.entries()].map(([folder, threads]) => ({
    block: { kind: 'project', folder, name: folder.split('/').filter(Boolean).pop() ?? folder } as const,
    threads,
  }));
}
