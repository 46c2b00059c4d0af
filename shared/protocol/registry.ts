import type { z } from 'zod';
import type { MethodSpec, NotificationSpec } from './define.js';
import { tablesBuilt } from './lazy-registry.js';
import { commandExecMethods, commandExecNotifications } from './methods/command-exec.js';
import { approvalMethods, approvalNotifications, approvalServerRequests, commandNotifications } from './methods/approvals.js';
import { configMethods, configNotifications, modelProbeMethods } from './methods/config.js';
import { desktopMethods, desktopNotifications } from './methods/desktop.js';
import { dynamicToolNotifications, dynamicToolServerRequests } from './methods/dynamic-tools.js';
import { initializeMethods } from './methods/initialize.js';
import { environmentMethods, environmentNotifications } from './methods/environment.js';
import { jobMethods, jobNotifications } from './methods/job.js';
import { mcpMethods, mcpNotifications } from './methods/mcp.js';
import { mcpElicitationServerRequests, serverRequestNotifications } from './methods/mcp-elicitation.js';
import { eventMethods } from './methods/events.js';
import { execPolicyMethods, execPolicyNotifications } from './methods/exec-policy.js';
import { goalMethods, goalNotifications } from './methods/goal.js';
import { hookMethods, hookNotifications } from './methods/hooks.js';
import { projectMethods } from './methods/projects.js';
import { reviewMethods } from './methods/review.js';
import { queueMethods, queueNotifications } from './methods/queue.js';
import { scheduleMethods, scheduleNotifications } from './methods/schedule.js';
import { threadMethods, threadNotifications } from './methods/thread.js';
import { threadPageMethods } from './methods/thread-pages.js';
import { threadSandboxMethods, threadSandboxNotifications } from './methods/thread-sandbox.js';
import { turnMethods, turnNotifications } from './methods/turn.js';
import { storageMethods } from './methods/storage.js';
import { workspaceMethods } from './methods/workspace.js';

/**
 * The one declaration of the protocol. Every carrier (Electron IPC, stdio,
 * WebSocket), the dispatcher, the typed client and the preload bridge derive
 * from these three tables. To add a method: declare it in `methods/<ns>.ts`,
 * spread the table here, then implement its handler (typecheck demands one).
 */
export const clientMethods = {
  ...initializeMethods,
  ...threadMethods,
  ...threadPageMethods,
  ...configMethods,
  ...modelProbeMethods,
  ...turnMethods,
  ...goalMethods,
  ...queueMethods,
  ...eventMethods,
  ...workspaceMethods,
  ...commandExecMethods,
  ...hookMethods,
  ...approvalMethods,
  ...jobMethods,
  ...environmentMethods,
  ...scheduleMethods,
  ...mcpMethods,
  ...execPolicyMethods,
  ...threadSandboxMethods,
  ...desktopMethods,
  ...projectMethods,
  ...reviewMethods,
  ...storageMethods,
} as const satisfies Record<string, MethodSpec>;

export const serverNotifications = {
  ...dynamicToolNotifications,
  ...threadNotifications,
  ...configNotifications,
  ...turnNotifications,
  ...goalNotifications,
  ...queueNotifications,
  ...commandExecNotifications,
  ...hookNotifications,
  ...commandNotifications,
  ...approvalNotifications,
  ...jobNotifications,
  ...environmentNotifications,
  ...scheduleNotifications,
  ...mcpNotifications,
  ...serverRequestNotifications,
  ...execPolicyNotifications,
  ...threadSandboxNotifications,
  ...desktopNotifications,
} as const satisfies Record<string, NotificationSpec>;

/** Requests the server sends to a client (client-side tools; later approvals, elicitations). */
export const serverRequests = {
  ...dynamicToolServerRequests,
  ...approvalServerRequests,
  ...mcpElicitationServerRequests,
} as const satisfies Record<string, MethodSpec>;

tablesBuilt({ clientMethods, serverRequests });

export type ClientMethod = keyof typeof clientMethods;
export type NotificationMethod = keyof typeof serverNotifications;
export type ServerRequestMethod = keyof typeof serverRequests;

/** What a caller may send (before defaults are applied). */
export type ParamsOf<M extends ClientMethod> = z.input<(typeof clientMethods)[M]['params']>;
/** What a handler receives (after validation and defaults). */
export type HandlerParamsOf<M extends ClientMethod> = z.output<(typeof clientMethods)[M]['params']>;
export type ResultOf<M extends ClientMethod> = z.output<(typeof clientMethods)[M]['result']>;
export type NotificationParamsOf<N extends NotificationMethod> = z.output<
  (typeof serverNotifications)[N]['params']
>;

export type ServerRequestParamsOf<M extends ServerRequestMethod> = z.output<(typeof serverRequests)[M]['params']>;
export type ServerRequestResultOf<M extends ServerRequestMethod> = z.output<(typeof serverRequests)[M]['result']>;

/** A notification as a discriminated union, for `switch (n.method)` with exhaustiveness. */
export type AnyNotification = {
  [N in NotificationMethod]: { method: N; params: NotificationParamsOf<N>; seq?: number; emittedAtMs?: number };
}[NotificationMethod];

export function isClientMethod(method: string): method is ClientMethod {
  return Object.prototype.hasOwnProperty.call(clientMethods, method);
}

export function isNotificationMethod(method: string): method is NotificationMethod {
  return Object.prototype.hasOwnProperty.call(serverNotifications, method);
}

export function isServerRequestMethod(method: string): method is ServerRequestMethod {
  return Object.prototype.hasOwnProperty.call(serverRequests, method);
}
