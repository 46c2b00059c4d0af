/**
 * The environment a child process starts with: the login environment without
 * the secret variables (provider keys: a command that prints its environment
 * would put them in the log, every client and the next model request), except
 * those `inherit` names, then the spawn's own overlay (where a value the
 * caller sets explicitly wins, a secret's included, and `null` removes).
 */
export function childEnvironment(
  login: Readonly<Record<string, string>>,
  overlay: Readonly<Record<string, string | null>> | undefined,
  secrets: Iterable<string>,
  inherit: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { ...login };
  const kept = new Set(inherit);
  for (const name of secrets) if (!kept.has(name)) delete env[name];
  for (const [key, value] of Object.entries(overlay ?? {})) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  return env;
}
