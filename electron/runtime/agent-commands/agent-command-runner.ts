import fs from 'node:fs';
import path from 'node:path';
import { LOCAL_ENVIRONMENT_ID, type AdditionalPermissionProfile, type CommandExecutionApprovalDecision, type CommandRunsIn, type PersonAnswer, type ToolCallOutcome } from '../../../shared/protocol/index.js';
import { ExecError, signalWords, type ExecSessions, type ExecYield, type ProcessSupervisor, type RemoteProcessHost, type SandboxPolicy, type SpawnSpec, type SupervisedProcess } from '../../exec/index.js';
import type { ModelToolCall } from '../../model/types.js';
import type { ApprovalBroker } from '../approvals/approval-broker.js';
import type { EventLog } from '../event-log.js';
import { decideSandboxDenialRetry } from '../policy/approval-modes.js';
import { decidedByOf, sessionGrantDecidedBy } from '../policy/decided-by.js';
import type { ExecPolicyEngine } from '../policy/home-rules.js';
import type { AskForApproval, ExecPolicyDecision, SandboxMode } from '../policy/policy-vocabulary.js';
import type { PermissionHooks, Refusal, ToolResult } from '../tools/tool-table.js';
import type { ActiveTurn } from '../active-turn.js';
import { commandActions } from './command-actions.js';
import { CommandItemTracker } from './command-item.js';
import { additionalPermissionProfile, looksLikeSandboxDenial, requestedSandbox, resolveAdditions, runsInOf, sandboxPolicy } from './command-sandbox.js';
import { DEFAULT_YIELD_MS, type ExecCommandArgs, type WriteStdinArgs } from './command-tool-specs.js';

export { sandboxPolicy } from './command-sandbox.js';

/** An exec_command call to record: run with its checked arguments, or refused before it ran. */
export type CommandCall = { readonly args: ExecCommandArgs; readonly permission: PermissionHooks } | { readonly refusal: Refusal };

/** What one exec_command call ran: enough to run it again without the sandbox. */
interface CommandRun {
  readonly tracker: CommandItemTracker;
  readonly ran: { readonly args: ExecCommandArgs; readonly cwd: string; readonly sandbox: SandboxPolicy; readonly approvalPolicy: AskForApproval } | null;
}

/** How an approval request describes where the command runs. */
interface AskedRun {
  readonly runsIn: CommandRunsIn;
  /** The machine it would run on (`local`: this computer). */
  readonly environmentId: string;
  readonly additionalPermissions: AdditionalPermissionProfile | null;
  readonly retryOfSandboxDenial: boolean;
}

export interface AgentCommandRunnerDeps {
  readonly supervisor: ProcessSupervisor;
  readonly sessions: ExecSessions;
  readonly policy: () => Promise<ExecPolicyEngine>;
  readonly approvals: ApprovalBroker;
  readonly events: EventLog;
  /** The thread's approval policy and sandbox mode (thread/start), with the app's defaults filled in. */
  readonly settingsOf: (threadId: string) => Promise<{
    approvalPolicy: AskForApproval;
    sandbox: SandboxMode;
    project?: string | null;
    /** Another machine the thread's commands run on (thread/start `environments`); null or absent: this one. */
    machine?: { readonly environmentId: string; readonly cwd: string } | null;
  }>;
  /** Where commands start on another machine (an SSH host of Settings → Machines, electron/exec/remote). */
  readonly remoteProcesses?: (environmentId: string) => RemoteProcessHost;
  readonly newId: () => string;
  readonly now: () => number;
  /**
   * Wraps the ack of the command's output subscription so output counts as
   * consumed once every client's carrier has sent it (a slow client pauses
   * the command); absent, it counts as consumed once published.
   */
  readonly ackWhenClientsCatchUp?: (ack: (bytes: number) => void) => (bytes: number) => void;
}

interface RunningCommand {
  readonly sessionId: string;
  readonly tracker: CommandItemTracker;
  readonly turnId: string;
  readonly command: string;
  readonly cwd: string;
  readonly sandbox: SandboxPolicy;
  /** Where it runs; only this computer's commands become jobs when their turn ends. */
  readonly environmentId: string;
  /** Already handed to the job engine. */
  adopted: boolean;
}

/** A command of an ended turn that is still running. */
export interface LeftoverCommand {
  readonly process: SupervisedProcess;
  readonly command: string;
  readonly cwd: string;
  readonly sandbox: SandboxPolicy;
}

/**
 * The model's `exec_command` and `write_stdin`: policy decision, approval,
 * spawn through the supervisor, streamed `commandExecution` item, and a
 * Codex-style answer (exit code and output, or a session id to poll).
 */
export class AgentCommandRunner {
  private readonly running = new Map<number, RunningCommand>();
  private nextSession = 1;

  constructor(private readonly deps: AgentCommandRunnerDeps) {}

  /**
   * Records one exec_command call as its `commandExecution` item: run (with
   * the checked arguments and the call's PermissionRequest hooks), or
   * refused before it ran (bad arguments, a PreToolUse hook, a stopped turn).
   * Answers what the model was told.
   */
  async execCommand(turn: ActiveTurn, call: ModelToolCall, input: unknown, mode: CommandCall): Promise<ToolResult> {
    const first = await this.execCommandItem(turn, call, input, mode);
    const retried = 'args' in mode ? await this.retryWithoutSandbox(turn, call, first, mode.permission) : null;
    const item = (retried ?? first.tracker).snapshot;
    return { success: item.status === 'completed' || (item.status === 'inProgress' && item.modelOutput !== null), output: item.modelOutput ?? '' };
  }

  /**
   * A command the sandbox stopped (Codex's retry on a sandbox denial): the
   * person is asked, with one click, whether to run it again without the
   * sandbox; what they decide (and the second run's output) is told to the model.
   */
  private async retryWithoutSandbox(turn: ActiveTurn, call: ModelToolCall, first: CommandRun, permission: PermissionHooks): Promise<CommandItemTracker | null> {
    const item = first.tracker.snapshot;
    if (!first.ran || item.status !== 'failed' || turn.controller.signal.aborted) return null;
    if (!looksLikeSandboxDenial(first.ran.sandbox, item.exitCode, item.aggregatedOutput ?? '')) return null;
    const requirement = decideSandboxDenialRetry(first.ran.approvalPolicy, first.ran.args.cmd);
    if (requirement.type !== 'needs_approval') return null;
    const tracker = new CommandItemTracker(turn, this.deps.events, this.deps.now, {
      id: this.deps.newId(),
      callId: call.id,
      arguments: first.tracker.snapshot.arguments,
      command: item.command,
      cwd: first.ran.cwd,
      actions: item.commandActions,
      decidedBy: item.decidedBy ?? null,
    });
    // The model reads one answer for its call: the first run's, then what came of asking.
    tracker.prefaceModelOutput(`${item.modelOutput ?? ''}\n\nThe sandbox stopped this command, so the person was asked whether to run it again without the sandbox. `);
    tracker.announce({ status: 'failed', output: 'Wheelhouse stopped while this command ran.' });
    const decision: ExecPolicyDecision = { requirement, matchedRule: null, commands: [] };
    const where: AskedRun = { runsIn: { type: 'noSandbox' }, environmentId: LOCAL_ENVIRONMENT_ID, additionalPermissions: null, retryOfSandboxDenial: true };
    const answer = await this.askPerson(turn, tracker, decision, undefined, permission, where);
    if (answer !== 'stop') {
      tracker.prefaceModelOutput(`${item.modelOutput ?? ''}\n\nThe sandbox stopped this command; the person allowed running it again without the sandbox, and it ran:\n`);
      await this.run(turn, tracker, first.ran.cwd, first.ran.args, { mode: 'danger-full-access' });
    }
    return tracker;
  }

  private async execCommandItem(turn: ActiveTurn, call: ModelToolCall, input: unknown, mode: CommandCall): Promise<CommandRun> {
    const command = 'args' in mode ? mode.args.cmd : typeof input === 'object' && input && 'cmd' in input ? String((input as { cmd: unknown }).cmd) : call.arguments;
    const engine = await this.deps.policy();
    const settings = await this.deps.settingsOf(turn.threadId);
    const machine = settings.machine ?? null;
    const asked = 'args' in mode ? (mode.args.sandbox_permissions ?? 'use_default') : 'use_default';
    // The sandbox is this computer's: on another machine a command runs with the account's rights there, so it is
    // decided (here, before anything is sent) as a command that leaves the sandbox.
    const decision = await engine.evaluate({
      command,
      approvalPolicy: settings.approvalPolicy,
      sandboxMode: settings.sandbox,
      requireEscalated: asked !== 'use_default' || machine !== null,
      asksForAdditions: machine === null && asked === 'with_additional_permissions',
      project: settings.project ?? null,
    });
    const argvs = decision.commands.map((verdict) => [...verdict.command]);
    const requirement = decision.requirement;
    const granted = requirement.type === 'needs_approval' && this.deps.approvals.covers(turn.threadId, needingApproval(decision));
    const tracker = new CommandItemTracker(turn, this.deps.events, this.deps.now, {
      id: this.deps.newId(),
      callId: call.id,
      arguments: input,
      command,
      cwd: machine?.cwd ?? turn.cwd,
      environmentId: machine?.environmentId ?? null,
      actions: commandActions(command, argvs),
      decidedBy: granted ? sessionGrantDecidedBy(needingApproval(decision)[0] ?? []) : decidedByOf(decision, settings.approvalPolicy),
    });
    if ('refusal' in mode) {
      const { refusal } = mode;
      if (refusal.kind === 'invalidArguments') this.fail(tracker, refusal.message);
      else if (refusal.kind === 'blocked') this.decline(tracker, `Not run: ${refusal.text}`, refusal.outcome);
      else this.decline(tracker, 'Not run: the turn was stopped before the command ran.', { by: 'turnEnded' });
      return { tracker, ran: null };
    }
    const { args, permission } = mode;
    const cwd = machine ? { ok: true as const, path: path.posix.resolve(machine.cwd, args.workdir ?? '.') } : resolveWorkdir(turn.cwd, args.workdir, settings.sandbox);
    if (!cwd.ok) {
      this.fail(tracker, cwd.reason);
      return { tracker, ran: null };
    }
    if (requirement.type === 'forbidden') {
      this.decline(tracker, `Not run: the exec policy forbids it: ${requirement.reason}`, { by: 'policy', reason: null });
      return { tracker, ran: null };
    }
    const asking = requirement.type === 'needs_approval' && !granted;
    // A command that asks is announced with its request (askPerson), after the thread's waiting flag, as Codex orders them;
    // one that runs straight away is announced once its process exists, with its id (run).
    const additions = resolveAdditions(args.additional_permissions, cwd.path);
    // What the model asked for applies once someone allowed it: the person now, a grant for the thread, or a rule.
    let sandbox: SandboxPolicy =
      requirement.type === 'skip' && !requirement.bypassSandbox
        ? sandboxPolicy(settings.sandbox, cwd.path)
        : requestedSandbox(sandboxPolicy(settings.sandbox, cwd.path), asked, additions);
    if ((requirement.type === 'skip' && requirement.bypassSandbox) || machine) sandbox = { mode: 'danger-full-access' };
    if (asking) {
      const where: AskedRun = {
        runsIn: runsInOf(sandbox, settings.sandbox, asked, additions),
        environmentId: machine?.environmentId ?? LOCAL_ENVIRONMENT_ID,
        additionalPermissions: machine ? null : additionalPermissionProfile(asked, additions),
        retryOfSandboxDenial: false,
      };
      const answer = await this.askPerson(turn, tracker, decision, args.justification, permission, where, prefixRuleOf(args.prefix_rule, decision));
      if (answer === 'stop') return { tracker, ran: null };
      if (answer === 'run-with-network' && sandbox.mode !== 'danger-full-access') sandbox = { ...sandbox, networkAccess: true };
    }
    await this.run(turn, tracker, cwd.path, args, sandbox, machine?.environmentId ?? LOCAL_ENVIRONMENT_ID);
    return { tracker, ran: { args, cwd: cwd.path, sandbox, approvalPolicy: settings.approvalPolicy } };
  }

  /** write_stdin: types into (or stops) a command that outlived its exec_command call, then reads on. */
  async writeStdin(args: WriteStdinArgs): Promise<ToolResult> {
    const running = this.running.get(args.session_id);
    if (!running) return { success: false, output: `No running command with session_id ${args.session_id} (it ended, or never existed).` };
    const answer = args.stop
      ? await this.deps.sessions.stop(running.sessionId)
      : await this.deps.sessions.poll(running.sessionId, { yieldMs: args.yield_time_ms ?? DEFAULT_YIELD_MS, ...(args.chars ? { input: args.chars } : {}) });
    if (answer.status === 'exited') this.running.delete(args.session_id);
    return { success: true, output: this.describe(answer, args.session_id) };
  }

  /** Commands a turn started that still run after it ended (each handed out once: they become jobs). */
  takeLeftovers(turnId: string): LeftoverCommand[] {
    const leftovers: LeftoverCommand[] = [];
    for (const running of this.running.values()) {
      if (running.turnId !== turnId || running.adopted || running.environmentId !== LOCAL_ENVIRONMENT_ID) continue;
      const process = this.deps.supervisor.get(running.sessionId);
      if (!process || process.state === 'exited') continue;
      running.adopted = true;
      leftovers.push({ process, command: running.command, cwd: running.cwd, sandbox: running.sandbox });
    }
    return leftovers;
  }

  private async askPerson(
    turn: ActiveTurn,
    tracker: CommandItemTracker,
    decision: ExecPolicyDecision,
    justification: string | undefined,
    permission: PermissionHooks,
    where: AskedRun,
    proposedRule: readonly string[] | null = null,
  ): Promise<'run' | 'run-with-network' | 'stop'> {
    const requirement = decision.requirement;
    if (requirement.type !== 'needs_approval') return 'run';
    const proposed = proposedRule ?? requirement.proposedExecpolicyAmendment;
    const amendment = proposed ? [...proposed] : null;
    // Running again without the sandbox is one command, once: nothing to grant for the thread or remember.
    const available: CommandExecutionApprovalDecision[] = where.retryOfSandboxDenial ? ['accept'] : ['accept', 'acceptForSession'];
    if (amendment && !where.retryOfSandboxDenial) available.push({ acceptWithExecpolicyAmendment: { execpolicy_amendment: amendment } });
    // Hosts the script names while the sandbox has no network: each can be allowed (for this command) or denied.
    const network = where.runsIn.type === 'noSandbox' ? [] : requirement.proposedNetworkPolicyAmendments.map((entry) => ({ ...entry }));
    for (const entry of network) available.push({ applyNetworkPolicyAmendment: { network_policy_amendment: entry } });
    available.push('decline', 'cancel');
    const item = tracker.snapshot;
    const hookDetails = { requestId: item.id, command: item.command, reason: requirement.reason };
    const refused = await permission.requested(hookDetails);
    if (refused) {
      this.decline(tracker, `Not run: ${refused.text}`, refused.outcome);
      await permission.answered(hookDetails, 'decline');
      return 'stop';
    }
    const asked = this.deps.approvals.request(
      turn,
      {
        threadId: turn.threadId,
        turnId: turn.id,
        itemId: item.id,
        approvalId: null,
        startedAtMs: this.deps.now(),
        kind: 'command',
        command: item.command,
        cwd: item.cwd,
        commandActions: item.commandActions,
        reason: justification ? `${requirement.reason}. The agent says: ${justification}` : requirement.reason,
        proposedExecpolicyAmendment: amendment,
        proposedNetworkPolicyAmendments: network.length > 0 ? network : null,
        availableDecisions: available,
        additionalPermissions: where.additionalPermissions,
        networkApprovalContext: null,
        environmentId: where.environmentId,
        decidedBy: item.decidedBy ?? null,
        runsIn: where.runsIn,
        ...(where.retryOfSandboxDenial ? { retryOfSandboxDenial: true } : {}),
      },
      turn.controller.signal,
      needingApproval(decision),
    );
    // The request has marked the thread waiting; its item goes out next, and the request itself only after it.
    // Lost while waiting (a crash): nobody answered, as when the turn is stopped.
    tracker.announce({ status: 'declined', output: null });
    tracker.saveIfLost({ status: 'declined', output: null, outcome: { by: 'turnEnded' } });
    const outcome = await asked;
    tracker.saveIfLost({ status: 'failed', output: 'Wheelhouse stopped while this command ran.' });
    if (outcome.kind === 'ended') {
      this.decline(tracker, 'Not run: the turn was stopped before the command was approved.', { by: 'turnEnded' });
      // Hooks hear that the request is gone too.
      await permission.answered(hookDetails, 'ended');
      return 'stop';
    }
    const answer = outcome.decision;
    // A declined command's thread shows the waiting flag until the command's item/completed, as Codex's does.
    try {
      await permission.answered(hookDetails, typeof answer === 'string' ? answer : Object.keys(answer)[0] ?? 'accept');
      if (answer === 'decline') {
        this.decline(tracker, 'Not run: the person declined this command. Do not retry it; continue another way or ask them.', personSaid('declined'));
        return 'stop';
      }
      if (answer === 'cancel') {
        this.decline(tracker, 'Not run: the person declined this command and stopped the turn.', personSaid('declinedAndStopped'));
        outcome.release();
        turn.controller.abort();
        return 'stop';
      }
    } finally {
      outcome.release();
    }
    // acceptForSession was granted by the broker with the answer.
    if (typeof answer === 'object' && 'acceptWithExecpolicyAmendment' in answer) {
      const engine = await this.deps.policy();
      await engine.acceptAmendment(answer.acceptWithExecpolicyAmendment.execpolicy_amendment);
    }
    if (typeof answer === 'object' && 'applyNetworkPolicyAmendment' in answer) {
      const { host, action } = answer.applyNetworkPolicyAmendment.network_policy_amendment;
      if (action === 'deny') {
        this.decline(tracker, `Not run: the person denied network access to ${host}. Do not retry it; continue another way or ask them.`, personSaid('deniedNetwork', host));
        return 'stop';
      }
      // The sandbox cannot filter by host: allowing one gives this command the network (nothing is remembered).
      tracker.settle(personSaid('approvedWithNetwork', host));
      return 'run-with-network';
    }
    tracker.settle(personSaid(answer === 'acceptForSession' ? 'approvedForThread' : typeof answer === 'object' ? 'approvedAlways' : 'approved'));
    return 'run';
  }

  private async run(turn: ActiveTurn, tracker: CommandItemTracker, cwd: string, args: ExecCommandArgs, sandbox: SandboxPolicy, environmentId: string = LOCAL_ENVIRONMENT_ID): Promise<void> {
    let spawned: { terminate(): Promise<unknown> } | null = null;
    const onAbort = () => void spawned?.terminate();
    turn.controller.signal.addEventListener('abort', onAbort, { once: true });
    let answer: ExecYield;
    try {
      const remote = environmentId === LOCAL_ENVIRONMENT_ID ? null : this.remoteHost(environmentId);
      answer = await this.deps.sessions.start(
        {
          command: args.cmd,
          cwd,
          ...(args.env ? { env: args.env } : {}),
          ...(args.timeout_ms ? { timeoutMs: args.timeout_ms } : {}),
          sandbox,
          label: `exec_command: ${args.cmd.slice(0, 200)}`,
        },
        {
          yieldMs: args.yield_time_ms ?? DEFAULT_YIELD_MS,
          ...(remote ? { spawn: (spec: SpawnSpec) => remote.spawn(spec) } : {}),
          onSpawned: (child) => {
            spawned = child;
            tracker.started(child.id, child.logPath);
            // As Codex: a command that did not ask first is announced here, its process id in item/started, before any output.
            tracker.announce({ status: 'failed', output: 'Wheelhouse stopped while this command ran.' });
            const ack = (bytes: number) => subscription.ack(bytes);
            const consumed = this.deps.ackWhenClientsCatchUp?.(ack) ?? ack;
            const subscription = child.subscribe(
              (event) => {
                if (event.type !== 'output') return;
                tracker.outputChunk(event.data, event.logOffset);
                consumed(event.data.length);
              },
              { flowControl: true },
            );
            void child.exited.then((exit) => {
              const why =
                exit.detail
                  ? `(${exit.detail})`
                  : exit.reason === 'timed-out'
                  ? `(stopped: it ran longer than ${args.timeout_ms} ms)`
                  : exit.reason !== 'exited'
                    ? `(stopped: ${exit.reason})`
                    : exit.signal
                      ? `(it ${signalWords(exit.signal)})`
                      : undefined;
              tracker.finish(exit.exitCode === 0 ? 'completed' : 'failed', { exitCode: exit.exitCode, durationMs: Math.round(exit.durationMs), ...(why ? { message: why } : {}) });
            });
            if (turn.controller.signal.aborted) onAbort();
          },
        },
      );
    } catch (error) {
      turn.controller.signal.removeEventListener('abort', onAbort);
      const why = error instanceof ExecError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
      this.fail(tracker, `Could not start the command: ${why}`);
      return;
    }
    turn.controller.signal.removeEventListener('abort', onAbort);
    let sessionNumber: number | null = null;
    if (answer.status === 'running') {
      sessionNumber = this.nextSession++;
      this.running.set(sessionNumber, { sessionId: answer.sessionId, tracker, turnId: turn.id, command: args.cmd, cwd, sandbox, environmentId, adopted: false });
      const number = sessionNumber;
      void this.deps.supervisor.get(answer.sessionId)?.exited.then(() => {
        // Kept until write_stdin collects the exit; forgotten if the model never does.
        setTimeout(() => this.running.delete(number), 10 * 60_000).unref();
      });
    }
    tracker.returned(this.describe(answer, sessionNumber));
  }

  private remoteHost(environmentId: string): RemoteProcessHost {
    if (!this.deps.remoteProcesses) throw new ExecError('spawn-failed', `no machine ${environmentId} here`);
    return this.deps.remoteProcesses(environmentId);
  }

  /** Could not run (bad arguments, folder, spawn): the item ends at once, and the person and the model read the same reason. */
  private fail(tracker: CommandItemTracker, message: string): void {
    tracker.announce({ status: 'failed', output: message });
    tracker.finish('failed', { message });
    tracker.returned(message);
  }

  /**
   * Not run by someone's decision: the model reads `forModel` (which may
   * tell it what to do next); a person sees who decided (`outcome`), never those words.
   */
  private decline(tracker: CommandItemTracker, forModel: string, outcome: ToolCallOutcome): void {
    tracker.settle(outcome);
    tracker.announce({ status: 'declined', output: null });
    tracker.finish('declined', {});
    tracker.returned(forModel);
  }

  private describe(answer: ExecYield, sessionNumber: number | null): string {
    if (answer.status === 'running') {
      return `Process running with session_id ${sessionNumber}\nOutput so far:\n${answer.output}`;
    }
    const { exit } = answer;
    const ended = exit.reason === 'exited' ? `Exit code: ${exit.exitCode}` : `Stopped (${exit.reason}${exit.signal ? `, ${exit.signal}` : ''})`;
    return `${ended}\nWall time: ${(exit.durationMs / 1000).toFixed(1)} seconds\nOutput:\n${answer.output}`;
  }
}

/**
 * The rule the model proposed (`prefix_rule`) when it is a prefix of a command
 * that needs approval; otherwise the policy's own proposal stands.
 */
function prefixRuleOf(prefixRule: readonly string[] | undefined, decision: ExecPolicyDecision): readonly string[] | null {
  if (!prefixRule) return null;
  const asked = decision.commands.filter((verdict) => verdict.decision !== 'allow').map((verdict) => verdict.command);
  const fits = asked.some((argv) => prefixRule.length <= argv.length && prefixRule.every((word, i) => argv[i] === word));
  return fits ? prefixRule : null;
}

/** The outcome of a person's answer. */
function personSaid(answer: PersonAnswer, host: string | null = null): ToolCallOutcome {
  return { by: 'person', answer, host };
}

/** The commands of a script that were not allowed outright: what "accept for session" grants. */
export function needingApproval(decision: ExecPolicyDecision): string[][] {
  return decision.commands.filter((verdict) => verdict.decision !== 'allow').map((verdict) => [...(verdict.proposedPrefix ?? verdict.command)]);
}

/** The working folder: inside the thread's folder, unless the thread runs without a sandbox. */
export function resolveWorkdir(root: string, workdir: string | undefined, sandbox: SandboxMode): { ok: true; path: string } | { ok: false; reason: string } {
  const wanted = path.resolve(root, workdir ?? '.');
  let real: string;
  let realRoot: string;
  try {
    real = fs.realpathSync(wanted);
    realRoot = fs.realpathSync(root);
  } catch {
    return { ok: false, reason: `Not run: the working folder ${wanted} does not exist.` };
  }
  const inside = real === realRoot || real.startsWith(realRoot + path.sep);
  if (!inside && sandbox !== 'danger-full-access') {
    return { ok: false, reason: `Not run: the working folder ${wanted} is outside the thread's folder ${root}.` };
  }
  return { ok: true, path: real };
}
