import { createHash } from 'node:crypto';
import type { HookEventName, HookMetadata } from '../../../shared/protocol/index.js';
import { checkConfigDocument, HOOK_CONFIG_EVENTS, type HookConfigEvent, type WheelhouseConfig } from '../../config/config-schema.js';

/** A hook may run this long unless its `timeout_sec` says otherwise. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/** The wire name (Codex's HookEventName) of each config.toml event key. */
export const WIRE_EVENT_NAME: Record<HookConfigEvent, HookEventName> = {
  SessionStart: 'sessionStart',
  UserPromptSubmit: 'userPromptSubmit',
  PreToolUse: 'preToolUse',
  PostToolUse: 'postToolUse',
  PermissionRequest: 'permissionRequest',
  Stop: 'stop',
};

/** One configured hook command, resolved from config.toml. */
export interface ConfiguredHook {
  /** `<Event>:<group>:<index>`, stable while config.toml keeps its order. */
  readonly key: string;
  readonly event: HookConfigEvent;
  /** `name`, else the command as written; what block messages quote. */
  readonly name: string;
  readonly command: string | readonly string[];
  readonly matcher: RegExp | null;
  readonly matcherText: string | null;
  readonly timeoutSec: number;
  readonly statusMessage: string | null;
  readonly displayOrder: number;
}

export function configuredHooks(config: WheelhouseConfig): ConfiguredHook[] {
  const hooks: ConfiguredHook[] = [];
  for (const event of HOOK_CONFIG_EVENTS) {
    (config.hooks?.[event] ?? []).forEach((group, groupIndex) => {
      const matcherText = group.matcher && group.matcher !== '*' ? group.matcher : null;
      group.hooks.forEach((hook, index) => {
        hooks.push({
          key: `${event}:${groupIndex}:${index}`,
          event,
          name: hook.name ?? commandText(hook.command),
          command: hook.command,
          matcher: matcherText === null ? null : new RegExp(matcherText),
          matcherText,
          timeoutSec: hook.timeout_sec ?? DEFAULT_HOOK_TIMEOUT_SEC,
          statusMessage: hook.status_message ?? null,
          displayOrder: hooks.length,
        });
      });
    });
  }
  return hooks;
}

/** Problems with the `hooks` table of config.toml (those hooks are left out; the rest run). */
export function hookConfigErrors(document: Record<string, unknown>): { message: string; path: string }[] {
  if (document['hooks'] === undefined) return [];
  const checked = checkConfigDocument({ hooks: document['hooks'] });
  return 'issues' in checked ? checked.issues.map((issue) => ({ message: issue.message, path: issue.keyPath })) : [];
}

export function toHookMetadata(hook: ConfiguredHook, sourcePath: string): HookMetadata {
  const command = commandText(hook.command);
  return {
    key: hook.key,
    eventName: WIRE_EVENT_NAME[hook.event],
    handlerType: 'command',
    command,
    async: false,
    matcher: hook.matcherText,
    timeoutSec: hook.timeoutSec,
    statusMessage: hook.statusMessage,
    source: 'user',
    sourcePath,
    displayOrder: hook.displayOrder,
    enabled: true,
    isManaged: false,
    currentHash: createHash('sha256').update(command).digest('hex'),
    trustStatus: 'trusted',
    pluginId: null,
    environmentId: null,
    additionalContextLimit: null,
  };
}

function commandText(command: string | readonly string[]): string {
  return typeof command === 'string' ? command : command.map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}
