import { z } from 'zod';
import { defineMethod, defineNotification } from '../define.js';
import { RpcError } from '../errors.js';

/**
 * The desktop app's own methods: answered by its Electron shell (open at
 * login, restarting the runtime) rather than by the runtime, and declared
 * here like every other method so the renderer's client is typed from them.
 * Other hosts (`wheelhouse serve`, `app-server`) answer each with -32601 and
 * a sentence saying it belongs to the desktop app. Codex has none of these.
 */

/** How the desktop app's runtime is doing, as its shell sees it. */
export const DesktopRuntimeState = z.discriminatedUnion('state', [
  /** Opening its stores; requests wait for it. */
  z.object({ state: z.literal('starting') }),
  z.object({ state: z.literal('running') }),
  /** Stopping the old runtime and opening a new one (the window reloads when it is up). */
  z.object({ state: z.literal('restarting') }),
  /** It could not open (or stopped); `reason` is what went wrong, in words. */
  z.object({ state: z.literal('failed'), reason: z.string() }),
]);
export type DesktopRuntimeState = z.infer<typeof DesktopRuntimeState>;

/** A place in the window the shell asks the renderer to show (application menu, tray, a notification's Open). */
export const DesktopOpenTarget = z.discriminatedUnion('view', [
  z.object({ view: z.literal('newThread') }),
  z.object({ view: z.literal('settings') }),
  z.object({ view: z.literal('jobs') }),
  z.object({ view: z.literal('approvals') }),
  z.object({ view: z.literal('job'), jobId: z.string().min(1) }),
  z.object({ view: z.literal('thread'), threadId: z.string().min(1) }),
]);
export type DesktopOpenTarget = z.infer<typeof DesktopOpenTarget>;

export const DesktopStateResult = z.object({
  runtime: DesktopRuntimeState,
  /** Whether Wheelhouse opens when the person logs in; null where this system offers no way to set it. */
  openAtLogin: z.boolean().nullable(),
  /** What the shell asked to show before this window was listening (a notification clicked while it was closed); handed out once. */
  open: DesktopOpenTarget.nullable(),
});
export type DesktopStateResult = z.infer<typeof DesktopStateResult>;

export const desktopMethods = {
  'desktop/state/read': defineMethod(z.object({}), DesktopStateResult, 'Desktop app: how its runtime is doing and its own settings (open at login).'),
  'desktop/openAtLogin/set': defineMethod(
    z.object({ openAtLogin: z.boolean() }),
    z.object({ openAtLogin: z.boolean() }),
    'Desktop app: open Wheelhouse (in the background) when the person logs in, or stop doing so.',
  ),
  'desktop/runtime/restart': defineMethod(
    z.object({}),
    z.object({}),
    'Desktop app: stop the runtime (jobs keep running where they can) and start it again; the window reloads once it is up.',
  ),
} as const;

export type DesktopMethod = keyof typeof desktopMethods;

export const desktopNotifications = {
  'desktop/runtime/changed': defineNotification(z.object({ runtime: DesktopRuntimeState }), 'Desktop app: its runtime started, failed or is restarting.'),
  'desktop/open': defineNotification(z.object({ target: DesktopOpenTarget }), 'Desktop app: show this (chosen from the application menu, the tray or a notification).'),
} as const;

/** Whether a method belongs to the desktop shell rather than the runtime. */
export function isDesktopMethod(method: string): method is DesktopMethod {
  return Object.prototype.hasOwnProperty.call(desktopMethods, method);
}

/** What hosts other than the desktop app answer to a desktop method. */
export function desktopOnlyMessage(method: string): string {
  return `${method} belongs to the Wheelhouse desktop app; this host (a server started from the command line) does not offer it`;
}

/** The handlers of a host that is not the desktop app: each desktop method is refused with -32601 and why. */
export function desktopOnlyHandlers(): { readonly [M in DesktopMethod]: () => never } {
  const refuse = (method: DesktopMethod) => (): never => {
    throw RpcError.because('desktop.only', desktopOnlyMessage(method));
  };
  return {
    'desktop/state/read': refuse('desktop/state/read'),
    'desktop/openAtLogin/set': refuse('desktop/openAtLogin/set'),
    'desktop/runtime/restart': refuse('desktop/runtime/restart'),
  };
}
