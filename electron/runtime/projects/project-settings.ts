import path from 'node:path';
import { z } from 'zod';
import { AskForApproval, SandboxMode, type ProjectSettings } from '../../../shared/protocol/index.js';
import type { ConfigService } from '../../config/config-service.js';

/**
 * `[projects."<folder>"]` in config.toml: Codex keeps a folder's trust level there; Wheelhouse
 * adds what the folder's new threads start with (`model`, `model_provider`, `sandbox_mode`,
 * `approval_policy`, Codex's own key names). A value that does not parse is ignored, not fatal.
 */
const ProjectTable = z.looseObject({
  model: z.string().max(200).optional().catch(undefined),
  model_provider: z.string().max(200).optional().catch(undefined),
  sandbox_mode: SandboxMode.optional().catch(undefined),
  approval_policy: AskForApproval.optional().catch(undefined),
});

const KEYS = {
  model: 'model',
  modelProvider: 'model_provider',
  sandbox: 'sandbox_mode',
  approvalPolicy: 'approval_policy',
} as const satisfies Record<keyof ProjectSettings, string>;

export function readProjectSettings(config: ConfigService, folder: string): ProjectSettings {
  const projects = (config.current().config as { projects?: unknown }).projects;
  const raw = projects && typeof projects === 'object' ? (projects as Record<string, unknown>)[path.resolve(folder)] : undefined;
  const table = ProjectTable.safeParse(raw ?? {});
  const found = table.success ? table.data : {};
  return {
    model: found.model ?? null,
    modelProvider: found.model_provider ?? null,
    sandbox: found.sandbox_mode ?? null,
    approvalPolicy: found.approval_policy ?? null,
  };
}

/** Writes the given settings (null forgets one); returns the keyPath changed, for config/changed. */
export function writeProjectSettings(config: ConfigService, folder: string, settings: Partial<ProjectSettings>): string {
  const current = readProjectSettings(config, folder);
  const patch: Record<string, string | null> = {};
  for (const [name, key] of Object.entries(KEYS) as Array<[keyof ProjectSettings, string]>) {
    const value = settings[name];
    if (value === undefined) continue;
    // TOML has no null: a key is removed only where it exists.
    if (value === null && current[name] === null) continue;
    patch[key] = value;
  }
  if (Object.keys(patch).length > 0) config.applyEdits([{ keyPath: 'projects', value: { [path.resolve(folder)]: patch }, mergeStrategy: 'upsert' }]);
  return 'projects';
}
