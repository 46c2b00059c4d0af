import fs from 'node:fs';
import { DEFAULT_NOTIFICATION_PREFERENCES, DEFAULT_RETENTION, type ConfigEdit, type NotificationPreferences, type RetentionBudgets } from '../../shared/protocol/index.js';
import { DEFAULT_PROVIDER_ID, type ProviderConfig } from './builtin-providers.js';
import { ConfigError } from './config-error.js';
import { loadConfigFile, readConfigDocument, writeConfigDocument, type ConfigSnapshot } from './config-file.js';
import { checkConfigDocument } from './config-schema.js';
import { applyEdit, type JsonValue } from './key-path.js';
import { mergeProviders } from './providers.js';
import { tightenIfPresent } from '../store/private-files.js';

/**
 * Owns config.toml in the Wheelhouse home: reads it when it changes on disk
 * (so hand edits show up), and applies edits as read-modify-write of the
 * whole parsed document, all or nothing, so keys Wheelhouse does not know are
 * kept.
 */
export class ConfigService {
  private snapshot: ConfigSnapshot;
  private stamp: string;
  private merged: ProviderConfig[];

  constructor(readonly filePath: string) {
    // Writes are 0600 (writeFileAtomic); a file made by hand or an older build is tightened too.
    tightenIfPresent(filePath);
    this.stamp = fileStamp(filePath);
    this.snapshot = loadConfigFile(filePath);
    this.merged = mergeProviders(this.snapshot.config);
  }

  /** The file as it is now on disk (re-read only when it changed). */
  current(): ConfigSnapshot {
    const stamp = fileStamp(this.filePath);
    if (stamp !== this.stamp) this.reload(stamp);
    return this.snapshot;
  }

  /** Built-in providers with overrides, then configured ones. */
  providers(): readonly ProviderConfig[] {
    this.current();
    return this.merged;
  }

  provider(providerId: string): ProviderConfig | null {
    return this.providers().find((provider) => provider.id === providerId) ?? null;
  }

  /** `model_provider`, else DeepSeek. */
  modelProvider(): string {
    return this.current().config.model_provider ?? DEFAULT_PROVIDER_ID;
  }

  /** `model` as configured (null: use the provider's default). */
  model(): string | null {
    return this.current().config.model ?? null;
  }

  /** `[wheelhouse.retention]`, each budget its default unless set. */
  retentionBudgets(): RetentionBudgets {
    const table = this.current().config.wheelhouse?.retention ?? {};
    return {
      maxAgeDays: table.max_age_days ?? DEFAULT_RETENTION.maxAgeDays,
      eventLogMb: table.event_log_mb ?? DEFAULT_RETENTION.eventLogMb,
      processLogsMb: table.process_logs_mb ?? DEFAULT_RETENTION.processLogsMb,
      jobLogsMb: table.job_logs_mb ?? DEFAULT_RETENTION.jobLogsMb,
      checkpointsMb: table.checkpoints_mb ?? DEFAULT_RETENTION.checkpointsMb,
    };
  }

  /** `[wheelhouse.notifications]`, each kind on unless turned off. */
  notificationPreferences(): NotificationPreferences {
    const table = this.current().config.wheelhouse?.notifications ?? {};
    return {
      jobFinished: table.job_finished ?? DEFAULT_NOTIFICATION_PREFERENCES.jobFinished,
      jobFailed: table.job_failed ?? DEFAULT_NOTIFICATION_PREFERENCES.jobFailed,
      approvalNeeded: table.approval_needed ?? DEFAULT_NOTIFICATION_PREFERENCES.approvalNeeded,
    };
  }

  /**
   * Applies edits to a fresh read of the file, validates the result and
   * writes it atomically; nothing is written when any edit is bad. Throws
   * ConfigError (a malformed file, a bad value: the message names the line or
   * the key path) or KeyPathError.
   */
  applyEdits(edits: readonly ConfigEdit[]): string[] {
    const document = readConfigDocument(this.filePath);
    for (const edit of edits) {
      applyEdit(document, edit.keyPath, edit.value as JsonValue, edit.mergeStrategy ?? 'replace');
    }
    const checked = checkConfigDocument(document);
    if ('issues' in checked) {
      const first = checked.issues[0];
      const listed = checked.issues.map((issue) => `${issue.keyPath}: ${issue.message}`).join('; ');
      const keyPath = first?.keyPath ?? null;
      throw new ConfigError('invalid', `config not changed: ${listed}`, this.filePath, null, null, keyPath);
    }
    writeConfigDocument(this.filePath, document);
    this.reload(fileStamp(this.filePath));
    return edits.map((edit) => edit.keyPath);
  }

  private reload(stamp: string): void {
    this.stamp = stamp;
    this.snapshot = loadConfigFile(this.filePath);
    this.merged = mergeProviders(this.snapshot.config);
  }
}

/** Changes whenever the file is replaced or rewritten. */
function fileStamp(filePath: string): string {
  try {
    const stat = fs.statSync(filePath, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch {
    return 'missing';
  }
}
