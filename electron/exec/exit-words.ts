/** How a process that ended on a signal is described to people: what happened, with the signal's name kept in brackets. */
const SIGNAL_WORDS: Readonly<Record<string, string>> = {
  SIGTERM: 'was asked to stop',
  SIGKILL: 'was force-stopped',
  SIGINT: 'was interrupted',
  SIGHUP: 'stopped when its terminal closed',
  SIGSEGV: 'crashed',
  SIGABRT: 'crashed',
  SIGBUS: 'crashed',
  SIGPIPE: 'stopped because its output was closed',
};

/** "was force-stopped (SIGKILL)"; for a signal without words, "was stopped by the system (SIGUSR1)". */
export function signalWords(signal: string | null): string {
  if (signal === null) return 'was stopped';
  return `${SIGNAL_WORDS[signal] ?? 'was stopped by the system'} (${signal})`;
}
