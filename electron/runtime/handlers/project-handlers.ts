import type { projectMethods } from '../../../shared/protocol/index.js';
import type { ProjectService } from '../projects/project-service.js';
import type { TurnChanges } from '../projects/turn-changes.js';
import type { HandlerTable } from './handler-table.js';

/** project/*, thread/changes/*, thread/worktree/*: projects, a thread's changes and undo, its separate copy. */
export function projectHandlers(projects: ProjectService, changes: TurnChanges): HandlerTable<typeof projectMethods> {
  return {
    'project/list': (params) => projects.listProjects(params),
    'project/read': (params) => projects.readProject(params.projectId),
    'project/state/read': (params) => projects.readState(params.path),
    'project/settings/write': (params) => projects.writeSettings(params),
    'thread/changes/read': (params) => changes.read(params),
    'thread/changes/revert': (params) => changes.revert(params),
    'thread/changes/commit': (params) => projects.commit(params),
    'thread/worktree/read': (params) => projects.readWorktree(params.threadId),
    'thread/worktree/merge': (params) => projects.merge(params),
    'thread/worktree/keep': (params) => projects.keep(params.threadId),
    'thread/worktree/discard': (params) => projects.discard(params.threadId),
  };
}
