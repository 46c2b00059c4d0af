import type { WorkspaceFiles } from '../../files/workspace-files.js';

/**
 * Where a turn's files are: this computer's folder, or the folder on the SSH
 * machine its thread works on (thread/start `environments`), with the
 * `WorkspaceFiles` that reach them. The patch engine and the file tools act
 * through it, so they are written once for both.
 */
export interface TurnWorkspace {
  readonly files: WorkspaceFiles;
  /** The folder, as a path on that machine. */
  readonly cwd: string;
  /** The machine (an environment id); null for this computer. */
  readonly environmentId: string | null;
}

/** What the workspace of a turn is looked up by. */
export interface WorkspaceTurn {
  readonly threadId: string;
  readonly cwd: string;
}

export type WorkspaceOf = (turn: WorkspaceTurn) => Promise<TurnWorkspace>;
