import { RpcError, type HandlerParamsOf, type ResultOf } from '../../../shared/protocol/index.js';
import type { ThreadRecord } from '../../store/thread-store.js';
import { blockedText, type HookDispatcher, type SessionStartOutcome } from './hook-dispatcher.js';

/** What thread/start falls back to when its params leave something out. */
export interface SessionDefaults {
  readonly cwd: string;
  readonly model: string | null;
  readonly modelProvider: string;
}

/**
 * thread/start behind its SessionStart hooks: a block refuses the request
 * (nothing is created), a chosen model replaces the requested one.
 */
export async function startWithSessionHooks(
  hooks: HookDispatcher,
  params: HandlerParamsOf<'thread/start'>,
  defaults: SessionDefaults,
  start: (params: HandlerParamsOf<'thread/start'>) => ResultOf<'thread/start'>,
): Promise<ResultOf<'thread/start'>> {
  const ephemeral = params.ephemeral ?? false;
  const outcome = await hooks.sessionStart({
    threadId: null,
    cwd: params.cwd ?? defaults.cwd,
    model: params.model ?? defaults.model,
    modelProvider: params.modelProvider ?? defaults.modelProvider,
    source: 'startup',
    ephemeral,
  });
  throwIfBlocked(outcome);
  const started = start(outcome.model ? { ...params, model: outcome.model } : params);
  hooks.reportSessionStart({ threadId: started.thread.id, turnId: null, cwd: started.cwd, ephemeral }, outcome);
  return started;
}

/** thread/resume behind its SessionStart hooks (matcher subject `resume`). */
export async function resumeWithSessionHooks(
  hooks: HookDispatcher,
  params: HandlerParamsOf<'thread/resume'>,
  record: ThreadRecord,
  resume: (params: HandlerParamsOf<'thread/resume'>) => ResultOf<'thread/resume'>,
): Promise<ResultOf<'thread/resume'>> {
  const outcome = await hooks.sessionStart({
    threadId: record.id,
    cwd: params.cwd ?? record.cwd,
    model: params.model ?? record.model,
    modelProvider: params.modelProvider ?? record.modelProvider,
    source: 'resume',
    ephemeral: record.ephemeral,
  });
  throwIfBlocked(outcome);
  return resume(outcome.model ? { ...params, model: outcome.model } : params);
}

function throwIfBlocked(outcome: SessionStartOutcome): void {
  if (outcome.blocked) throw RpcError.because('hook.blocked', blockedText(outcome.blocked), { hook: outcome.blocked });
}
