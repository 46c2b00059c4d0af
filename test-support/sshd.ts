import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SshConnection } from '../electron/exec/remote/ssh-connection.js';
import { spawnTracked, type TrackedChild } from './child-process.js';
import { onEvents, waitUntil } from './waiting.js';

/**
 * A real OpenSSH server on 127.0.0.1 for one test file: its own config, a
 * throwaway host key and user key in a temp folder, a free port, running as
 * the current user (root in CI, as sshd allows key logins for root). Started
 * in `beforeAll`, stopped in `afterAll`; tests skip with the reason when
 * sshd or ssh-keygen is missing (`.ci/run` installs openssh-server).
 */

const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  /** The user's private key (OpenSSH format), as a person would keep it in the keychain. */
  readonly privateKey: string;
  readonly privateKeyPath: string;
  /** `SHA256:…` of the current host key, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint(): string;
  /** `[127.0.0.1]:port ssh-ed25519 AAAA…`: the current host key as a known_hosts line. */
  knownHostsLine(): string;
  /** Makes a new host key and has the server read it (a changed host key on the same host and port). */
  replaceHostKey(): Promise<void>;
  /** The sshd processes serving connections now (one per session), not the listener. */
  sessionPids(): number[];
  stop(): Promise<void>;
}

/** Why the server cannot run here, or null. */
/** A connection to the test sshd as its test user, trusting only its host key (no known_hosts, never asking). */
export function pinnedConnection(server: TestSshd): SshConnection {
  return new SshConnection({
    host: server.host,
    port: server.port,
    user: server.user,
    privateKey: async () => server.privateKey,
    pinnedFingerprint: server.hostKeyFingerprint(),
    knownHostsFiles: [],
    askHostKey: async () => false,
  });
}

export function sshdUnavailable(): string | null {
  for (const binary of [SSHD, '/usr/bin/ssh-keygen']) {
    if (!fs.existsSync(binary)) return `${binary} is not installed (openssh-server; .ci/run installs it)`;
  }
  return null;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function keygen(file: string): void {
  execFileSync('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'wheelhouse-test', '-f', file]);
}

/** `SHA256:…` of an OpenSSH public key line. */
function fingerprintOf(publicLine: string): string {
  const blob = Buffer.from(publicLine.trim().split(/\s+/)[1]!, 'base64');
  return `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

export async function startSshd(dir: string): Promise<TestSshd> {
  const user = os.userInfo().username;
  const port = await freePort();
  const hostKey = path.join(dir, 'host_ed25519');
  const userKey = path.join(dir, 'user_ed25519');
  keygen(hostKey);
  keygen(userKey);
  fs.copyFileSync(`${userKey}.pub`, path.join(dir, 'authorized_keys'));
  fs.chmodSync(path.join(dir, 'authorized_keys'), 0o600);
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      // The temp folder is not owned the way sshd's StrictModes wants for a home.
      'StrictModes no',
      'UsePAM no',
      'PrintMotd no',
      // What Debian's own sshd_config offers: the files of a thread on a machine go over SFTP.
      'Subsystem sftp internal-sftp',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  // As root, sshd wants its privilege-separation folder (the Debian service makes it at boot).
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  let daemon: TrackedChild | null = null;
  {
    const child = spawnTracked(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    daemon = child;
    await waitUntil(
      () => {
        if (child.stderr().includes('Server listening on')) return true;
        if (child.child.exitCode !== null) throw new Error(`sshd did not start: ${child.stderr()}`);
        return false;
      },
      { what: 'sshd to listen', wakeOn: onEvents(child.child.stderr!, 'data', 'end') },
    );
  }

  const stopDaemon = async () => {
    const child = daemon;
    daemon = null;
    if (!child) return;
    // Its session processes are its children; they go with their connections.
    await child.stop('SIGTERM');
  };

  return {
    host: '127.0.0.1',
    port,
    user,
    privateKey: fs.readFileSync(userKey, 'utf8'),
    privateKeyPath: userKey,
    hostKeyFingerprint: () => fingerprintOf(fs.readFileSync(`${hostKey}.pub`, 'utf8')),
    knownHostsLine: () => {
      const [type, blob] = fs.readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/);
      return `[127.0.0.1]:${port} ${type} ${blob}`;
    },
    replaceHostKey: async () => {
      fs.rmSync(hostKey);
      fs.rmSync(`${hostKey}.pub`);
      keygen(hostKey);
      // SIGHUP: sshd executes itself again (same pid, so the file's processes stay the same) and reads the new key.
      const child = daemon!;
      const listening = () => child.stderr().split('Server listening on').length - 1;
      const before = listening();
      child.child.kill('SIGHUP');
      await waitUntil(() => listening() > before, { what: 'sshd to listen with its new host key', wakeOn: onEvents(child.child.stderr!, 'data') });
    },
    sessionPids: () => {
      const listener = daemon?.child.pid;
      if (listener === undefined) return [];
      return fs
        .readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .map(Number)
        .filter((pid) => {
          try {
            const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === listener;
          } catch {
            return false;
          }
        });
    },
    stop: stopDaemon,
  };
}
