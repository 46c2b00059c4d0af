import type { Dispatcher } from '../../shared/protocol/index.js';
import type { ConfigService } from '../config/config-service.js';
import type { ApprovalBroker } from '../runtime/approvals/approval-broker.js';
import type { CommandExecService } from '../runtime/terminal/command-exec-service.js';
import type { RequestContext } from '../runtime/context.js';
import type { EventLog } from '../runtime/event-log.js';
import type { OutgoingSender } from '../runtime/outgoing/outgoing-sender.js';
import type { JobShutdownOptions, JobEngine } from '../runtime/jobs/job-engine.js';
import type { ThreadManager } from '../runtime/thread-manager.js';
import type { ClientTools } from '../runtime/tools/client-tools.js';

/**
 * What a carrier (electron/server: stdio, WebSocket, HTTP; electron/main: the
 * desktop shell) sees of a running runtime: the dispatcher, the event stream,
 * the ways to reach its clients, and the few reads it answers from itself.
 * Everything else stays behind the dispatcher. `Runtime` (runtime.ts) is one.
 */
export interface CarrierRuntime {
  readonly dispatcher: Dispatcher<RequestContext>;
  /** Notifications as they are logged (subscribe), and the log read back (replay, lastSeq) for event streams. */
  readonly events: Pick<EventLog, 'subscribe' | 'replay' | 'lastSeq' | 'publish' | 'announced'>;
  /** Whether a thread exists (its record), for routes that check before they call. */
  readonly threads: Pick<ThreadManager, 'require'>;
  /** Every message to clients: carriers attach their connections here and hand answers back; they only transport. */
  readonly outgoing: OutgoingSender;
  /** Approvals waiting for the person: who watches them (the desktop shell), and their answers. */
  readonly approvals: Pick<ApprovalBroker, 'watch' | 'list' | 'answer'>;
  /** Client-side tools: which connection owns a thread's tools. */
  readonly clientTools: Pick<ClientTools, 'add' | 'claim'>;
  /** command/exec: a connection's commands end with it. */
  readonly commandExec: Pick<CommandExecService, 'connectionClosed'>;
  /** Jobs the desktop shell pauses or lists on quit. */
  readonly jobs: Pick<JobEngine, 'pause' | 'list'>;
  /** The person's notification preferences, for the desktop shell's notifications. */
  readonly config: Pick<ConfigService, 'notificationPreferences'>;
  /** How an approval that no longer waits ended (`answered`, `ended`, …), or null if there never was one. */
  finishedApprovalState(requestId: string): string | null;
  /** Jobs with a run in flight: what quitting would stop, or leave running in the background. */
  runningJobCount(): number;
  shutdown(options?: JobShutdownOptions): Promise<void>;
  close(): void;
}
