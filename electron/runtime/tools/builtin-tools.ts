import { z } from 'zod';
import { defineTool, type ToolEntry, type ToolInvocation } from './tool-table.js';
import type { WorkspaceOf, WorkspaceTurn } from './turn-workspace.js';
import { displayPath, resolveInside, SKIPPED_DIRECTORIES } from './workspace-path.js';

const MAX_LIST_ENTRIES = 500;
const MAX_READ_BYTES = 256 * 1024;
const MAX_SEARCH_FILES = 5000;
const MAX_SEARCH_FILE_BYTES = 1024 * 1024;

function listDirectoryTool(workspaceOf: WorkspaceOf): ToolEntry<WorkspaceTurn> {
  return defineTool({
    name: 'list_directory',
    description: 'List files and folders in a directory of the project (relative to the project root).',
    args: z.object({
      path: z.string().max(4096).optional().describe('Directory relative to the project root; default "."'),
    }),
    async run(args, { turn }: ToolInvocation<WorkspaceTurn>) {
      const { files, cwd } = await workspaceOf(turn);
      const dir = await resolveInside(files, cwd, args.path);
      const entries = [...(await files.readDirectory(dir))];
      const isDirectory = (entry: (typeof entries)[number]) => entry.kind === 'directory';
      entries.sort((a, b) => Number(isDirectory(b)) - Number(isDirectory(a)) || a.name.localeCompare(b.name));
      const lines = entries.slice(0, MAX_LIST_ENTRIES).map((e) => (isDirectory(e) ? `${e.name}/` : e.name));
      if (entries.length > MAX_LIST_ENTRIES) lines.push(`… and ${entries.length - MAX_LIST_ENTRIES} more`);
      return { success: true, output: lines.length > 0 ? lines.join('\n') : '(empty directory)' };
    },
  });
}

function readFileTool(workspaceOf: WorkspaceOf): ToolEntry<WorkspaceTurn> {
  return defineTool({
    name: 'read_file',
    description: 'Read a text file of the project. Optionally a range of lines (1-based).',
    args: z.object({
      path: z.string().min(1).max(4096).describe('File path relative to the project root'),
      startLine: z.number().int().min(1).optional(),
      lineCount: z.number().int().min(1).max(5000).optional(),
    }),
    async run(args, { turn }: ToolInvocation<WorkspaceTurn>) {
      const { files, cwd } = await workspaceOf(turn);
      const file = await resolveInside(files, cwd, args.path);
      const facts = await files.stat(file);
      if (facts?.kind !== 'file') return { success: false, output: `${args.path} is not a file` };
      const buffer = await files.readFile(file, MAX_READ_BYTES);
      if (buffer.includes(0)) return { success: false, output: `${args.path} looks like a binary file` };
      let text = buffer.toString('utf8');
      if (args.startLine !== undefined || args.lineCount !== undefined) {
        const start = (args.startLine ?? 1) - 1;
        text = text.split('\n').slice(start, start + (args.lineCount ?? 200)).join('\n');
      }
      const cut = facts.size > MAX_READ_BYTES ? `\n… [file is ${facts.size} bytes; showing the first ${MAX_READ_BYTES}]` : '';
      return { success: true, output: text + cut };
    },
  });
}

function searchTextTool(workspaceOf: WorkspaceOf): ToolEntry<WorkspaceTurn> {
  return defineTool({
    name: 'search_text',
    description: 'Find lines containing a text (case-insensitive) in the project files.',
    args: z.object({
      query: z.string().min(1).max(500).describe('Text to look for'),
      path: z.string().max(4096).optional().describe('Folder to search, relative to the project root; default "."'),
      maxResults: z.number().int().min(1).max(500).optional(),
    }),
    async run(args, { turn, signal }: ToolInvocation<WorkspaceTurn>) {
      const { files, cwd } = await workspaceOf(turn);
      const path = files.paths;
      const root = await resolveInside(files, cwd, undefined);
      const start = await resolveInside(files, cwd, args.path);
      const needle = args.query.toLowerCase();
      const limit = args.maxResults ?? 100;
      const hits: string[] = [];
      let scanned = 0;
      const queue = [start];
      while (queue.length > 0 && hits.length < limit && scanned < MAX_SEARCH_FILES) {
        if (signal.aborted) break;
        const dir = queue.shift()!;
        const isDirectory = (await files.stat(dir))?.kind === 'directory';
        const entries = isDirectory ? await files.readDirectory(dir) : [{ name: path.basename(dir), kind: 'file' as const }];
        const base = isDirectory ? dir : path.dirname(dir);
        for (const entry of entries) {
          const full = path.join(base, entry.name);
          if (entry.kind === 'directory') {
            if (!SKIPPED_DIRECTORIES.has(entry.name)) queue.push(full);
            continue;
          }
          if (entry.kind !== 'file') continue;
          scanned += 1;
          const info = await files.stat(full);
          if (!info || info.size > MAX_SEARCH_FILE_BYTES) continue;
          const content = await files.readFile(full);
          if (content.includes(0)) continue;
          const lines = content.toString('utf8').split('\n');
          for (let i = 0; i < lines.length && hits.length < limit; i++) {
            if (lines[i]!.toLowerCase().includes(needle)) {
              hits.push(`${displayPath(files, root, full)}:${i + 1}: ${lines[i]!.trim().slice(0, 300)}`);
            }
          }
          if (hits.length >= limit) break;
        }
      }
      return { success: true, output: hits.length > 0 ? hits.join('\n') : `No matches for "${args.query}"` };
    },
  });
}

/** The read-only tools every thread has, in prompt order, on the files `workspaceOf` gives a turn (this computer's or an SSH machine's). */
export function builtinTools(workspaceOf: WorkspaceOf): ToolEntry<WorkspaceTurn>[] {
  return [listDirectoryTool(workspaceOf), readFileTool(workspaceOf), searchTextTool(workspaceOf)];
}
