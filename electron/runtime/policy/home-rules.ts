import { watch as watchFolder, type FSWatcher } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../files/atomic-write.js';
import { evaluateExecPolicy } from './judge-command.js';
import type { ExecPolicyDecision, ExecPolicyRequest, PrefixRule, RuleFileError } from './policy-vocabulary.js';
import { formatAllowRule, parseRuleFile } from './rules-file.js';
import { loadShellParser, ShellParserNotLoaded } from './shell-parse.js';

/** Rule files live in `<home>/rules/*.rules`; accepted amendments go to `default.rules`, as in Codex. */
export function rulesDirectory(home: string): string {
  return path.join(home, 'rules');
}

export function userRulesFile(home: string): string {
  return path.join(rulesDirectory(home), 'default.rules');
}

/**
 * A project's own rules: `<home>/rules/projects/<folder, URI-encoded>.rules`. Kept in the
 * home, not in the repository, so an agent working in the project cannot write its own rules.
 */
export function projectRulesDirectory(home: string): string {
  return path.join(rulesDirectory(home), 'projects');
}

export function projectRulesFile(home: string, project: string): string {
  return path.join(projectRulesDirectory(home), `${encodeURIComponent(path.resolve(project))}.rules`);
}

/** The project folder a rules file is for, or null for a file of every thread. */
export function projectOfRulesFile(home: string, file: string): string | null {
  if (path.dirname(file) !== projectRulesDirectory(home)) return null;
  try {
    return decodeURIComponent(path.basename(file, '.rules'));
  } catch {
    return null;
  }
}

/** One rules file as last read. */
export interface RuleFileState {
  readonly file: string;
  /** The rules in force from this file. */
  readonly rules: readonly PrefixRule[];
  readonly errors: readonly RuleFileError[];
  /** The file has errors now and the rules of its last good version are kept instead. */
  readonly keptPrevious: boolean;
  /** The project folder its rules apply to; null: every thread. */
  readonly project: string | null;
}

interface ReadRuleFiles {
  readonly files: readonly RuleFileState[];
  readonly folderErrors: readonly RuleFileError[];
}

async function readRuleFiles(home: string): Promise<ReadRuleFiles> {
  const shared = await readRulesFolder(home, rulesDirectory(home));
  const projects = await readRulesFolder(home, projectRulesDirectory(home));
  return { files: [...shared.files, ...projects.files], folderErrors: [...shared.folderErrors, ...projects.folderErrors] };
}

async function readRulesFolder(home: string, directory: string): Promise<ReadRuleFiles> {
  let names: string[];
  try {
    names = (await fs.readdir(directory)).filter((name) => name.endsWith('.rules')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files: [], folderErrors: [] };
    return { files: [], folderErrors: [{ file: directory, line: 0, message: `cannot list the rules folder: ${(error as Error).message}` }] };
  }
  const files: RuleFileState[] = [];
  for (const name of names) {
    const file = path.join(directory, name);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (error) {
      // Deleted between listing and reading: simply gone.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      files.push({ file, rules: [], errors: [{ file, line: 0, message: `cannot read: ${(error as Error).message}` }], keptPrevious: false, project: projectOfRulesFile(home, file) });
      continue;
    }
    const parsed = parseRuleFile(text, file);
    files.push({ file, rules: parsed.rules, errors: parsed.errors, keptPrevious: false, project: projectOfRulesFile(home, file) });
  }
  return { files, folderErrors: [] };
}

/** How long file changes settle before the rules are read again (editors write in several steps). */
const RELOAD_DEBOUNCE_MS = 150;
/** How soon a failed watch of the rules folder is tried again. */
const WATCH_RETRY_MS = 5_000;

/**
 * The exec policy of one Wheelhouse home: the rule files plus the built-in
 * defaults. `evaluate` is synchronous and pure; `reload` re-reads the files
 * (and `watch` does so when they change on disk). A file that has errors
 * keeps the rules of its last good version, so a half-typed edit never
 * drops a `forbidden` rule.
 */
export class ExecPolicyEngine {
  private files: readonly RuleFileState[] = [];
  private folderErrors: readonly RuleFileError[] = [];
  private ruleList: readonly PrefixRule[] = [];
  /** Each file's rules from its last read without errors. */
  private readonly lastGood = new Map<string, readonly PrefixRule[]>();
  /** Amendments and edits are read-modify-write of one file: one at a time, or one would lose the other. */
  private writes: Promise<void> = Promise.resolve();
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private watchers: FSWatcher[] = [];
  private debounce: ReturnType<typeof setTimeout> | null = null;
  /** Whether the folder should be watched (between watch() and stopWatching()). */
  private watchWanted = false;
  private watchRetry: ReturnType<typeof setTimeout> | null = null;
  private watchFailure: string | null = null;
  /** How soon a failed watch is tried again (tests shorten it). */
  watchRetryMs = WATCH_RETRY_MS;
  private readonly reloadListeners = new Set<() => void>();

  private constructor(readonly home: string) {}

  static async open(home: string): Promise<ExecPolicyEngine> {
    const engine = new ExecPolicyEngine(home);
    await engine.reload();
    return engine;
  }

  get rules(): readonly PrefixRule[] {
    return this.ruleList;
  }

  /** Problems found in the rule files (`file`, `line`, `column`, `message`); the rules around them still apply. */
  get loadErrors(): readonly RuleFileError[] {
    return [...this.folderErrors, ...this.files.flatMap((file) => file.errors)];
  }

  /** Each rules file as last read, in load order. */
  get ruleFiles(): readonly RuleFileState[] {
    return this.files;
  }

  /** Re-reads the rule files; concurrent calls share one read (and one more after it, if asked meanwhile). */
  reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.reloadAgain = false;
          this.apply(await readRuleFiles(this.home));
        } while (this.reloadAgain);
      } finally {
        this.reloading = null;
      }
    })();
    return this.reloading.then(() => this.reloadListeners.forEach((listener) => listener()));
  }

  private apply(read: ReadRuleFiles): void {
    const files = read.files.map((state): RuleFileState => {
      if (state.errors.length === 0) {
        this.lastGood.set(state.file, state.rules);
        return state;
      }
      const previous = this.lastGood.get(state.file);
      return previous ? { ...state, rules: previous, keptPrevious: true } : state;
    });
    for (const file of this.lastGood.keys()) if (!files.some((state) => state.file === file)) this.lastGood.delete(file);
    this.files = files;
    this.folderErrors = read.folderErrors;
    this.ruleList = files.filter((state) => state.project === null).flatMap((state) => state.rules);
  }

  /** Calls `listener` after every reload (file change on disk, edit, amendment). */
  onReload(listener: () => void): () => void {
    this.reloadListeners.add(listener);
    return () => this.reloadListeners.delete(listener);
  }

  /**
   * Why the rules folder is not being watched (edits made outside Wheelhouse
   * are then not picked up until a retry succeeds), or null while it is.
   */
  get watchError(): string | null {
    return this.watchFailure;
  }

  /**
   * Watches the rules folder (created if missing, owner-only) and reloads when
   * a file in it changes, after the changes settle. A watch that cannot start
   * or later fails is reported (watchError, a log line, the reload listeners)
   * and tried again every `watchRetryMs` until it holds.
   */
  async watch(): Promise<void> {
    if (this.watchers.length > 0) return;
    this.watchWanted = true;
    const reloadSoon = () => {
      if (this.debounce) clearTimeout(this.debounce);
      this.debounce = setTimeout(() => {
        this.debounce = null;
        void this.reload();
      }, RELOAD_DEBOUNCE_MS);
    };
    try {
      // The projects' folder sits inside the rules folder: both made owner-only.
      await fs.mkdir(projectRulesDirectory(this.home), { recursive: true, mode: 0o700 });
      if (!this.watchWanted || this.watchers.length > 0) return;
      for (const directory of [rulesDirectory(this.home), projectRulesDirectory(this.home)]) {
        const watcher = watchFolder(directory, reloadSoon);
        this.watchers.push(watcher);
        watcher.on('error', (error) => {
          this.closeWatcher();
          this.watchFailed(error);
        });
      }
    } catch (error) {
      this.closeWatcher();
      this.watchFailed(error);
      return;
    }
    this.watchFailure = null;
    // Anything written between the first read and the watch starting (also while it was down).
    await this.reload();
  }

  stopWatching(): void {
    this.watchWanted = false;
    if (this.watchRetry) clearTimeout(this.watchRetry);
    this.watchRetry = null;
    this.closeWatcher();
  }

  private closeWatcher(): void {
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = null;
  }

  private watchFailed(error: unknown): void {
    const why = error instanceof Error ? error.message : String(error);
    this.watchFailure = `the rules folder ${rulesDirectory(this.home)} cannot be watched (${why}): rules edited outside Wheelhouse are not picked up until it can; retrying`;
    console.warn(`[wheelhouse] ${this.watchFailure}`);
    this.reloadListeners.forEach((listener) => listener());
    if (!this.watchWanted || this.watchRetry) return;
    this.watchRetry = setTimeout(() => {
      this.watchRetry = null;
      if (this.watchWanted) void this.watch();
    }, this.watchRetryMs);
    this.watchRetry.unref?.();
  }

  /**
   * The home's rules, and the project's own when the request names one.
   * Plain scripts are judged at once; the first one that needs the shell
   * parser loads it (the rules are read again after the wait, so an edit
   * made meanwhile counts).
   */
  async evaluate(request: ExecPolicyRequest): Promise<ExecPolicyDecision> {
    try {
      return this.evaluateLoaded(request);
    } catch (error) {
      if (!(error instanceof ShellParserNotLoaded)) throw error;
      await loadShellParser();
      return this.evaluateLoaded(request);
    }
  }

  private evaluateLoaded(request: ExecPolicyRequest): ExecPolicyDecision {
    const project = request.project ? path.resolve(request.project) : null;
    const projectRules = project ? this.files.filter((state) => state.project === project).flatMap((state) => state.rules) : [];
    return evaluateExecPolicy(projectRules.length > 0 ? [...this.ruleList, ...projectRules] : this.ruleList, request);
  }

  /**
   * "Accept with the proposed rule": appends `prefix_rule(pattern = prefix, decision = "allow")`
   * to `<home>/rules/default.rules` (atomically, mode 0600) and reloads, so the next
   * evaluation already uses it.
   */
  acceptAmendment(prefix: readonly string[]): Promise<void> {
    return this.serialized(() => appendAllowRule(this.home, prefix));
  }

  /** Runs one read-modify-write of a rules file after the ones before it, then reloads. */
  serialized(write: () => Promise<unknown>): Promise<void> {
    const next = this.writes.then(async () => {
      await write();
      await this.reload();
    });
    this.writes = next.catch(() => undefined);
    return next;
  }
}

/** Appends an allow rule for `prefix` to the user's rules file; the file is replaced in one step. */
export async function appendAllowRule(home: string, prefix: readonly string[]): Promise<string> {
  if (prefix.length === 0 || prefix.some((token) => typeof token !== 'string' || token.length === 0 || token.includes('\n'))) {
    throw new TypeError('an execpolicy amendment needs a non-empty list of non-empty single-line words');
  }
  const file = userRulesFile(home);
  let existing = '';
  try {
    existing = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
  await fs.mkdir(rulesDirectory(home), { recursive: true, mode: 0o700 });
  writeFileAtomic(file, existing + separator + formatAllowRule(prefix), 0o600);
  return file;
}
