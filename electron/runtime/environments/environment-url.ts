import { RpcError, SlurmResourcesParams, type EnvironmentKind, type SlurmResourcesParams as SlurmResources } from '../../../shared/protocol/index.js';

/**
 * Codex's `execServerUrl`, with the schemes Wheelhouse runs:
 * `ssh://user@host:port/path`, `slurm+ssh://user@login-host/path?partition=…`
 * and `slurm:///path?…` (a cluster whose node this machine is). The path is
 * the remote working folder (absent: the home there); a Slurm URL's query
 * gives its jobs' resources (partition, account, time, cpus, mem, gpus).
 */
export interface ParsedEnvironmentUrl {
  readonly kind: Exclude<EnvironmentKind, 'local'>;
  /** Null for a local cluster. */
  readonly ssh: { readonly host: string; readonly port: number; readonly user: string } | null;
  readonly path: string | null;
  readonly slurm: SlurmResources | null;
}

const bad = (url: string, why: string) =>
  RpcError.invalidParams(`invalid params for environment/add: execServerUrl: ${why} (got ${JSON.stringify(url)}); write ssh://user@host:port/path, slurm+ssh://user@login-host/path?partition=… or slurm:///path`);

const QUERY_NAMES: Readonly<Record<string, keyof SlurmResources>> = { partition: 'partition', account: 'account', time: 'timeLimit', cpus: 'cpus', mem: 'memory', gpus: 'gpus' };

export function parseEnvironmentUrl(url: string, defaultUser: string): ParsedEnvironmentUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad(url, 'not a URL');
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (scheme !== 'ssh' && scheme !== 'slurm+ssh' && scheme !== 'slurm') {
    throw bad(url, scheme === 'ws' || scheme === 'wss' ? "Codex's exec-server over WebSocket is not something Wheelhouse runs" : `unknown scheme ${scheme}`);
  }
  const path = decodeURIComponent(parsed.pathname);
  const remotePath = path === '' || path === '/' ? null : path;
  let ssh: ParsedEnvironmentUrl['ssh'] = null;
  if (scheme === 'slurm') {
    if (parsed.hostname !== '') throw bad(url, 'slurm:/// names this machine; for a login host write slurm+ssh://user@host');
  } else {
    if (parsed.hostname === '') throw bad(url, 'no host');
    const port = parsed.port === '' ? 22 : Number(parsed.port);
    ssh = { host: parsed.hostname.replace(/^\[|\]$/g, ''), port, user: decodeURIComponent(parsed.username) || defaultUser };
  }
  let slurm: SlurmResources | null = null;
  if (scheme === 'ssh') {
    if ([...parsed.searchParams.keys()].length > 0) throw bad(url, 'an ssh:// address takes no query');
  } else {
    const raw: Record<string, string | number> = {};
    for (const [name, value] of parsed.searchParams) {
      const key = QUERY_NAMES[name];
      if (!key) throw bad(url, `unknown query parameter ${name} (known: ${Object.keys(QUERY_NAMES).join(', ')})`);
      raw[key] = key === 'cpus' || key === 'gpus' ? Number(value) : value;
    }
    const checked = SlurmResourcesParams.safeParse(raw);
    if (!checked.success) throw bad(url, checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
    slurm = checked.data;
  }
  return { kind: scheme === 'ssh' ? 'ssh' : 'slurm', ssh, path: remotePath, slurm };
}
