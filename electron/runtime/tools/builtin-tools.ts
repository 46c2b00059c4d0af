import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ToolEntry, type ToolInvocation } from './tool-table.js';
import { displayPath, resolveInside, SKIPPED_DIRECTORIES } from './workspace-path.js';

/** What the read-only tools need of a turn: its folder, which they never leave. */
export interface WorkspaceTurn {
  readonly cwd: string;
}

const MAX_LIST_ENTRIES = 500;
const MAX_READ_BYTES = 256 * 1024;
const MAX_SEARCH_FILES = 5000;
const MAX_SEARCH_FILE_BYTES = 1024 * 1024;

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description: 'List files and folders in a directory of the project (relative to the project root).',
  args: z.object({
    path: z.string().max(4096).optional().describe('Directory relative to the project root; default "."'),
  }),
  async run(args, { turn }: ToolInvocation<WorkspaceTurn>) {
    const dir = await resolveInside(turn.cwd, args.path);
    const entries = await fs.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name));
    const lines = entries.slice(0, MAX_LIST_ENTRIES).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    if (entries.length > MAX_LIST_ENTRIES) lines.push(`… and ${entries.length - MAX_LIST_ENTRIES} more`);
    return { success: true, output: lines.length > 0 ? lines.join('\n') : '(empty directory)' };
  },
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: 'Read a text file of the project. Optionally a range of lines (1-based).',
  args: z.object({
    path: z.string().min(1).max(4096).describe('File path relative to the project root'),
    startLine: z.number().int().min(1).optional(),
    lineCount: z.number().int().min(1).max(5000).optional(),
  }),
  async run(args, { turn }: ToolInvocation<WorkspaceTurn>) {
    const file = await resolveInside(turn.cwd, args.path);
    const stat = await fs.stat(file);
    if (!stat.isFile()) return { success: false, output: `${args.path} is not a file` };
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(stat.size, MAX_READ_BYTES));
      await handle.read(buffer, 0, buffer.length, 0);
      if (buffer.includes(0)) return { success: false, output: `${args.path} looks like a binary file` };
      let text = buffer.toString('utf8');
      if (args.startLine !== undefined || args.lineCount !== undefined) {
        const start = (args.startLine ?? 1) - 1;
        text = text.split('\n').slice(start, start + (args.lineCount ?? 200)).join('\n');
      }
      const cut = stat.size > MAX_READ_BYTES ? `\n… [file is ${stat.size} bytes; showing the first ${MAX_READ_BYTES}]` : '';
      return { success: true, output: text + cut };
    } finally {
      await handle.close();
    }
  },
});

export const searchTextTool = defineTool({
  name: 'search_text',
  description: 'Find lines containing a text (case-insensitive) in the project files.',
  args: z.object({
    query: z.string().min(1).max(500).describe('Text to look for'),
    path: z.string().max(4096).optional().describe('Folder to search, relative to the project root; default "."'),
    maxResults: z.number().int().min(1).max(500).optional(),
  }),
  async run(args, { turn, signal }: ToolInvocation<WorkspaceTurn>) {
    const root = await resolveInside(turn.cwd, undefined);
    const start = await resolveInside(turn.cwd, args.path);
    const needle = args.query.toLowerCase();
    const limit = args.maxResults ?? 100;
    const hits: string[] = [];
    let scanned = 0;
    const queue = [start];
    while (queue.length > 0 && hits.length < limit && scanned < MAX_SEARCH_FILES) {
      if (signal.aborted) break;
      const dir = queue.shift()!;
      const stat = await fs.stat(dir);
      const entries = stat.isDirectory()
        ? await fs.readdir(dir, { withFileTypes: true })
        : [{ name: path.basename(dir), isDirectory: () => false, isFile: () => true }];
      const base = stat.isDirectory() ? dir : path.dirname(dir);
      for (const entry of entries) {
        const full = path.join(base, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(entry.name)) queue.push(full);
          continue;
        }
        if (!entry.isFile()) continue;
        scanned += 1;
        const info = await fs.stat(full);
        if (info.size > MAX_SEARCH_FILE_BYTES) continue;
        const content = await fs.readFile(full);
        if (content.includes(0)) continue;
        const lines = content.toString('utf8').split('\n');
        for (let i = 0; i < lines.length && hits.length < limit; i++) {
          if (lines[i]!.toLowerCase().includes(needle)) {
            hits.push(`${displayPath(root, full)}:${i + 1}: ${lines[i]!.trim().slice(0, 300)}`);
          }
        }
        if (hits.length >= limit) break;
      }
    }
    return { success: true, output: hits.length > 0 ? hits.join('\n') : `No matches for "${args.query}"` };
  },
});

/** The read-only tools every thread has, in prompt order. */
export function builtinTools(): ToolEntry<WorkspaceTurn>[] {
  return [listDirectoryTool, readFileTool, searchTextTool];
}
