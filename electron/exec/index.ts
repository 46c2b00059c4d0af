export { ExecError, type ExecErrorCode } from './exec-error.js';
export { ExecSessions, type ExecYield } from './exec-sessions.js';
export { loginEnvironment, resolveLoginEnvironment, terminalShellArgv, userShell, type LoginEnvironment } from './login-environment.js';
export { boundedView, HeadTailBuffer } from './model-view.js';
export { ProcessSupervisor, DEFAULT_OUTPUT_LIMITS, type SupervisorOptions } from './supervisor.js';
export { SupervisedProcess } from './supervised-process.js';
export type { TerminalProgress } from './terminal-progress.js';
export type * from './types.js';
export { signalWords } from './exit-words.js';
