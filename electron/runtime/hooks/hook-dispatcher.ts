import type { HookOutputEntry, HookRunStatus, HookRunSummary, HooksListEntry, ToolCallOutcome } from '../../../shared/protocol/index.js';
import type { ConfigSnapshot } from '../../config/config-file.js';
import type { HookConfigEvent } from '../../config/config-schema.js';
import type { ProcessSupervisor } from '../../exec/index.js';
import type { EventLog } from '../event-log.js';
import { configuredHooks, hookConfigErrors, toHookMetadata, WIRE_EVENT_NAME, type ConfiguredHook } from './hook-config.js';
import { runHookProcess } from './hook-process.js';

/** Where a hook runs: the thread (and turn) it reports to, and its folder. */
export interface HookContext {
  readonly threadId: string;
  readonly turnId: string | null;
  readonly cwd: string;
  readonly ephemeral: boolean;
  /** Aborted when the turn is interrupted: running hooks are stopped. */
  readonly signal?: AbortSignal;
}

/** Why a hook stopped something (seed 002's `BlockReason`). */
export interface BlockReason {
  readonly hookName: string;
  readonly phase: string;
  readonly message: string;
}

/** The text a blocked caller sees, exactly as seed 002 words it. */
export function blockedText(reason: BlockReason): string {
  return `blocked by hook '${reason.hookName}' at ${reason.phase}: ${reason.message}`;
}

/** A hook's refusal as the item's outcome, for the person (the phase is the hook's business). */
export function hookOutcome(reason: BlockReason): ToolCallOutcome {
  return { by: 'hook', hook: reason.hookName, reason: reason.message };
}

export interface SessionStartInput {
  /** Null for thread/start: the thread does not exist until the hooks let it. */
  readonly threadId: string | null;
  readonly cwd: string;
  readonly model: string | null;
  readonly modelProvider: string;
  readonly source: 'startup' | 'resume';
  readonly ephemeral: boolean;
}

export interface SessionStartOutcome {
  readonly blocked: BlockReason | null;
  /** A model a hook chose instead (its last word wins). */
  readonly model: string | null;
  /** Merged `metadata` objects the hooks returned; given to this thread's later hooks. */
  readonly metadata: Record<string, unknown>;
  /** For thread/start: runs to report once the thread exists (see `reportSessionStart`). */
  readonly runs: readonly HookRunPair[];
}

interface HookRunPair {
  readonly started: HookRunSummary;
  readonly completed: HookRunSummary;
}

interface EventOutcome {
  readonly blocked: BlockReason | null;
  readonly answers: readonly Record<string, unknown>[];
  readonly runs: readonly HookRunPair[];
}

export interface HookDispatcherDeps {
  readonly supervisor: ProcessSupervisor;
  /** config.toml as it is now (hand edits apply to the next event). */
  readonly config: () => ConfigSnapshot;
  readonly events: EventLog;
  readonly newId: () => string;
  readonly now: () => number;
  readonly onInternalError?: (message: string, error: unknown) => void;
}

/** Events whose hooks may refuse what is about to happen; for the others a block answer is only a warning. */
const BLOCKING_EVENTS = new Set<HookConfigEvent>(['SessionStart', 'PreToolUse', 'PermissionRequest']);

/**
 * Runs the hooks configured in config.toml (`[[hooks.<Event>]]`) at points of
 * a session: each command gets the event as JSON on stdin and may answer JSON
 * on stdout. Hooks of one event run one after another, in config order; the
 * first block ends the event. Each run is reported as `hook/started` and
 * `hook/completed`; a hook that fails is reported and otherwise ignored.
 */
export class HookDispatcher {
  private readonly metadata = new Map<string, Record<string, unknown>>();

  constructor(private readonly deps: HookDispatcherDeps) {}

  /** hooks/list: the same config.toml hooks apply in every folder. */
  list(cwds: readonly string[]): HooksListEntry[] {
    const snapshot = this.deps.config();
    const hooks = configuredHooks(snapshot.config).map((hook) => toHookMetadata(hook, snapshot.filePath));
    const errors = hookConfigErrors(snapshot.document);
    return cwds.map((cwd) => ({ cwd, hooks, errors, warnings: [] }));
  }

  /**
   * Session start (thread/start and thread/resume), before the thread is
   * created or loaded: a hook may block it, choose the model, or add metadata.
   */
  async sessionStart(input: SessionStartInput): Promise<SessionStartOutcome> {
    const context = input.threadId === null ? null : { threadId: input.threadId, turnId: null, cwd: input.cwd, ephemeral: input.ephemeral };
    const outcome = await this.runEvent('SessionStart', context, input.cwd, input.source, {
      source: input.source,
      model: input.model,
      model_provider: input.modelProvider,
    });
    let model: string | null = null;
    const metadata: Record<string, unknown> = { ...(input.threadId ? this.metadata.get(input.threadId) : undefined) };
    for (const answer of outcome.answers) {
      if (typeof answer['model'] === 'string' && answer['model'].trim() !== '') model = answer['model'].trim();
      if (isObject(answer['metadata'])) Object.assign(metadata, answer['metadata']);
    }
    if (input.threadId !== null && outcome.blocked === null) this.metadata.set(input.threadId, metadata);
    return { blocked: outcome.blocked, model, metadata, runs: outcome.runs };
  }

  /** Reports the runs of thread/start's session-start hooks once the thread exists, and keeps their metadata. */
  reportSessionStart(context: HookContext, outcome: SessionStartOutcome): void {
    this.metadata.set(context.threadId, outcome.metadata);
    for (const run of outcome.runs) {
      this.publish('hook/started', context, run.started);
      this.publish('hook/completed', context, run.completed);
    }
  }

  /**
   * PreToolUse, run by the tool dispatcher before every call: `blocked` means
   * do not run it; `updatedInput` (Codex's `hookSpecificOutput.updatedInput`,
   * the last hook's wins) replaces the call's arguments.
   */
  async preToolUse(context: HookContext, call: ToolUseCall): Promise<PreToolUseOutcome> {
    const outcome = await this.runEvent('PreToolUse', context, context.cwd, call.name, toolPayload(call));
    let updatedInput: Record<string, unknown> | null = null;
    for (const answer of outcome.answers) {
      const specific = answer['hookSpecificOutput'];
      if (isObject(specific) && isObject(specific['updatedInput'])) updatedInput = specific['updatedInput'];
    }
    return { blocked: outcome.blocked, updatedInput };
  }

  /** PostToolUse, run by the tool dispatcher after every call that ran: what it returned (`output` as the model reads it). */
  async postToolUse(context: HookContext, call: ToolUseCall, result: { readonly success: boolean; readonly output: string }): Promise<void> {
    await this.runEvent('PostToolUse', context, context.cwd, call.name, {
      ...toolPayload(call),
      tool_response: { success: result.success, output: result.output },
    });
  }

  /** Turn start (Codex's UserPromptSubmit): told the prompt; cannot stop the turn. */
  async turnStarted(context: HookContext, prompt: string): Promise<void> {
    await this.runEvent('UserPromptSubmit', context, context.cwd, null, { prompt });
  }

  /** Turn end (Codex's Stop): told how the turn ended. */
  async turnEnded(context: HookContext, status: 'completed' | 'interrupted' | 'failed'): Promise<void> {
    // Not tied to the turn's signal: an interrupted turn's Stop hooks still run.
    const detached = { threadId: context.threadId, turnId: context.turnId, cwd: context.cwd, ephemeral: context.ephemeral };
    await this.runEvent('Stop', detached, context.cwd, null, { status });
  }

  /**
   * For the approvals code: call when an approval is requested. A
   * PermissionRequest hook that blocks answers it as declined (the returned
   * reason says why; show `blockedText(reason)`); null lets the person decide.
   */
  async approvalRequested(context: HookContext, request: ApprovalHookDetails): Promise<BlockReason | null> {
    const outcome = await this.runEvent('PermissionRequest', context, context.cwd, request.toolName, { phase: 'requested', ...approvalPayload(request) });
    return outcome.blocked;
  }

  /**
   * For the approvals code: call once an approval was answered (by the person
   * or a hook), with the decision's name, or `ended` when its turn stopped first. Observational.
   */
  async approvalAnswered(context: HookContext, request: ApprovalHookDetails, decision: string): Promise<void> {
    await this.runEvent('PermissionRequest', context, context.cwd, request.toolName, { phase: 'answered', decision, ...approvalPayload(request) }, false);
  }

  /** Metadata session-start hooks attached to a thread. */
  metadataOf(threadId: string): Record<string, unknown> {
    return this.metadata.get(threadId) ?? {};
  }

  /**
   * Runs the hooks of one event whose matcher accepts `subject`. With no
   * context (thread/start) runs are collected instead of published.
   */
  private async runEvent(
    event: HookConfigEvent,
    context: HookContext | null,
    cwd: string,
    subject: string | null,
    payload: Record<string, unknown>,
    mayBlock = BLOCKING_EVENTS.has(event),
  ): Promise<EventOutcome> {
    const answers: Record<string, unknown>[] = [];
    const runs: HookRunPair[] = [];
    let hooks: ConfiguredHook[];
    try {
      hooks = configuredHooks(this.deps.config().config).filter((hook) => hook.event === event && matches(hook, subject));
    } catch (error) {
      this.deps.onInternalError?.(`hooks of ${event} could not be read`, error);
      return { blocked: null, answers, runs };
    }
    const sourcePath = this.deps.config().filePath;
    for (const hook of hooks) {
      const startedAtMs = this.deps.now();
      const started = this.summary(hook, context, sourcePath, startedAtMs);
      if (context) this.publish('hook/started', context, started);
      const input = {
        hook_event_name: event,
        thread_id: context?.threadId ?? null,
        turn_id: context?.turnId ?? null,
        cwd,
        metadata: context ? this.metadataOf(context.threadId) : {},
        ...payload,
      };
      const result = await runHookProcess(this.deps.supervisor, {
        command: hook.command,
        cwd,
        timeoutMs: hook.timeoutSec * 1000,
        label: `hook ${hook.name} (${event})`,
        input,
        ...(context?.signal ? { signal: context.signal } : {}),
      }).catch((error: unknown) => ({ kind: 'failed' as const, error: `could not run: ${(error as Error).message}` }));
      const entries: HookOutputEntry[] = [];
      let status: HookRunStatus = 'completed';
      let statusMessage: string | null = null;
      let blockMessage: string | null = null;
      if (result.kind === 'stopped') {
        status = 'stopped';
        statusMessage = `hook '${hook.name}' was stopped: the turn was interrupted`;
      } else if (result.kind === 'failed') {
        status = 'failed';
        statusMessage = `hook '${hook.name}' ${result.error}`;
        entries.push({ kind: 'error', text: statusMessage });
      } else if (result.kind === 'refused') {
        blockMessage = result.reason;
      } else if (result.answer) {
        answers.push(result.answer);
        if (typeof result.answer['message'] === 'string') entries.push({ kind: 'feedback', text: result.answer['message'] });
        if (result.answer['decision'] === 'block') blockMessage = typeof result.answer['reason'] === 'string' && result.answer['reason'] ? result.answer['reason'] : 'no reason given';
      }
      if (blockMessage !== null) {
        if (mayBlock) {
          status = 'blocked';
          statusMessage = blockMessage;
          entries.push({ kind: 'stop', text: blockMessage });
        } else {
          entries.push({ kind: 'warning', text: `${event} hooks cannot block; ignored: ${blockMessage}` });
        }
      }
      const completedAtMs = this.deps.now();
      const completed: HookRunSummary = {
        ...started,
        status,
        statusMessage: statusMessage ?? started.statusMessage,
        completedAt: Math.floor(completedAtMs / 1000),
        durationMs: Math.max(0, completedAtMs - startedAtMs),
        entries,
      };
      runs.push({ started, completed });
      if (context) this.publish('hook/completed', context, completed);
      if (status === 'stopped') return { blocked: null, answers, runs };
      if (status === 'blocked') {
        return { blocked: { hookName: hook.name, phase: event === 'SessionStart' ? 'PreSessionStart' : event, message: blockMessage! }, answers, runs };
      }
    }
    return { blocked: null, answers, runs };
  }

  private summary(hook: ConfiguredHook, context: HookContext | null, sourcePath: string, startedAtMs: number): HookRunSummary {
    return {
      id: `hook-run-${this.deps.newId()}`,
      eventName: WIRE_EVENT_NAME[hook.event],
      handlerType: 'command',
      executionMode: 'sync',
      scope: context?.turnId ? 'turn' : 'thread',
      source: 'user',
      sourcePath,
      displayOrder: hook.displayOrder,
      status: 'running',
      statusMessage: hook.statusMessage,
      startedAt: Math.floor(startedAtMs / 1000),
      completedAt: null,
      durationMs: null,
      entries: [],
    };
  }

  private publish(method: 'hook/started' | 'hook/completed', context: HookContext, run: HookRunSummary): void {
    try {
      this.deps.events.publish(method, { threadId: context.threadId, turnId: context.turnId, run }, {
        threadId: context.threadId,
        turnId: context.turnId,
        ephemeral: context.ephemeral,
      });
    } catch (error) {
      this.deps.onInternalError?.(`${method} could not be published`, error);
    }
  }
}

export interface PreToolUseOutcome {
  readonly blocked: BlockReason | null;
  /** Arguments a hook put in place of the model's, or null. */
  readonly updatedInput: Record<string, unknown> | null;
}

/** A tool call as hooks see it; `name` is what the model called (`mcp__<server>__<tool>` for MCP). */
export interface ToolUseCall {
  readonly name: string;
  readonly callId: string;
  readonly argumentsJson: string;
}

function toolPayload(call: ToolUseCall): Record<string, unknown> {
  return { tool_name: call.name, tool_use_id: call.callId, tool_input: parseOrText(call.argumentsJson) };
}

/** What approval hooks are told about the request. */
export interface ApprovalHookDetails {
  readonly requestId: string;
  /** What asks: `exec_command`, `apply_patch`, ... (PermissionRequest matchers test this). */
  readonly toolName: string;
  readonly command: string | null;
  readonly reason: string | null;
}

function approvalPayload(request: ApprovalHookDetails): Record<string, unknown> {
  return { request_id: request.requestId, tool_name: request.toolName, command: request.command, reason: request.reason };
}

function matches(hook: ConfiguredHook, subject: string | null): boolean {
  return hook.matcher === null || subject === null || hook.matcher.test(subject);
}

function parseOrText(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
