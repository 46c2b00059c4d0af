import { z } from 'zod';
import { concurrent, defineMethod, defineNotification, oneAtATime } from '../define.js';

/**
 * Environments: where commands and jobs run. Codex's names and shapes where
 * Codex has them (environment/add|info|status, thread/environment/connected|
 * disconnected); ours beside (environment/list|remove|test, and the fields
 * marked "ours"). The address is Codex's `execServerUrl`, with the schemes
 * Wheelhouse runs: `ssh://user@host:port/path`, `slurm+ssh://user@login-host/path?partition=…`
 * and `slurm:///path?…` for a cluster whose node this machine is.
 * `local` is always there and cannot be added or removed.
 */


export const EnvironmentId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dots, dashes and underscores');

export const EnvironmentKind = z.enum(['local', 'ssh', 'slurm']);
export type EnvironmentKind = z.infer<typeof EnvironmentKind>;

/** Codex's EnvironmentStatusKind. */
export const EnvironmentStatusKind = z.enum(['ready', 'pending', 'disconnected', 'unknown']);
export type EnvironmentStatusKind = z.infer<typeof EnvironmentStatusKind>;

/** Resources of a Slurm environment's jobs (ours); also read from the URL's query. */
export const SlurmResourcesParams = z.object({
  partition: z.string().min(1).max(200).optional(),
  account: z.string().min(1).max(200).optional(),
  /** Slurm's `--time`: minutes, or `[days-]hours:minutes:seconds`. */
  timeLimit: z.string().regex(/^(\d+-)?\d+(:\d+){0,2}$/, 'minutes, or [days-]hours:minutes:seconds').optional(),
  cpus: z.number().int().min(1).max(4096).optional(),
  /** Slurm's `--mem`, e.g. `4G`. */
  memory: z.string().regex(/^\d+[KMGT]?$/, 'a size such as 4G or 500M').optional(),
  gpus: z.number().int().min(0).max(64).optional(),
});
export type SlurmResourcesParams = z.infer<typeof SlurmResourcesParams>;

/** Codex's TurnEnvironmentParams: an environment a thread or turn selects, with its folder there. */
export const TurnEnvironmentParams = z.object({
  environmentId: z.string().min(1).max(64),
  cwd: z.string().min(1).max(4096),
  runtimeWorkspaceRoots: z.array(z.string().min(1).max(4096)).max(64).nullable().optional(),
});
export type TurnEnvironmentParams = z.infer<typeof TurnEnvironmentParams>;

/** One environment as Wheelhouse lists it (ours). Never carries a key. */
export const EnvironmentSummary = z.object({
  environmentId: z.string(),
  kind: EnvironmentKind,
  name: z.string(),
  /** The address it was added with (null for local). */
  execServerUrl: z.string().nullable(),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  user: z.string().nullable(),
  /** The remote working folder (the default cwd of its jobs). */
  path: z.string().nullable(),
  slurm: SlurmResourcesParams.nullable(),
  /** The host key it was pinned to when added, if any. */
  hostKeyFingerprint: z.string().nullable(),
  /** Whether a private key is kept for it in the secret store (else the SSH agent is used). */
  hasPrivateKey: z.boolean(),
  status: EnvironmentStatusKind,
  /** Why it is disconnected, in words. */
  error: z.string().nullable(),
});
export type EnvironmentSummary = z.infer<typeof EnvironmentSummary>;

export const EnvironmentAddParams = z.object({
  environmentId: EnvironmentId,
  execServerUrl: z.string().min(1).max(2000),
  // Codex's fields for its WebSocket exec-server; Wheelhouse's schemes do not use them.
  authBearerToken: z.string().nullable().optional(),
  connectTimeoutMs: z.number().int().min(0).nullable().optional(),
  skills: z.object({ required: z.array(z.string()).nullable().optional() }).nullable().optional(),
  websocketRequestId: z.string().nullable().optional(),
  // Ours.
  name: z.string().trim().min(1).max(200).optional(),
  /** `SHA256:…`: the only host key accepted (no question asked). */
  hostKeyFingerprint: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256: and 43 base64 characters, as ssh-keygen -l prints it')
    .optional(),
  /** The private key (OpenSSH or PEM); kept in the keychain or the 0600 key file, never in the database. Omitted: the SSH agent. */
  privateKey: z.string().min(1).max(64 * 1024).optional(),
  slurm: SlurmResourcesParams.optional(),
});
export type EnvironmentAddParams = z.output<typeof EnvironmentAddParams>;

const EnvironmentRequest = z.object({ environmentId: z.string().min(1).max(64) });

/** Codex's EnvironmentShellInfo. */
export const EnvironmentShellInfo = z.object({ name: z.string(), path: z.string() });

export const EnvironmentInfoResult = z.object({
  /** Codex: the default working folder as a file URI. */
  cwd: z.string().nullable(),
  shell: EnvironmentShellInfo,
});

export const EnvironmentStatusResult = z.object({
  status: EnvironmentStatusKind,
  error: z.string().nullable().optional(),
});

export const EnvironmentTestParams = z.object({
  environmentId: z.string().min(1).max(64),
  /** The fingerprint the person was shown and trusts: a host no list knows is accepted with exactly this key, once, and remembered. */
  trustHostKey: z.string().max(100).optional(),
});

/** What testing an environment found (ours): it connects, runs `uname -a` and `id`, and times it. */
export const EnvironmentTestResult = z.object({
  ok: z.boolean(),
  /** Round trip of one command once connected, and the first connection's handshake. */
  latencyMs: z.number().nullable(),
  connectMs: z.number().nullable(),
  uname: z.string().nullable(),
  id: z.string().nullable(),
  /** Slurm environments: `sinfo` of the partition. */
  scheduler: z.string().nullable(),
  /** A host no list knows: the fingerprint to show the person (test again with `trustHostKey`). */
  unknownHostKey: z.object({ fingerprint: z.string(), keyType: z.string() }).nullable(),
  /** What went wrong, and the one thing that helps. */
  error: z.string().nullable(),
});
export type EnvironmentTestResult = z.infer<typeof EnvironmentTestResult>;

/** Codex's EnvironmentConnectionNotification. */
export const EnvironmentConnectionNotification = z.object({ environmentId: z.string(), threadId: z.string() });

/** Ours: an environment's connection changed (for Settings → Machines and job rows). */
export const EnvironmentStatusChangedNotification = z.object({ environmentId: z.string(), status: EnvironmentStatusKind, error: z.string().nullable() });
export type EnvironmentStatusChangedNotification = z.infer<typeof EnvironmentStatusChangedNotification>;

export const environmentMethods = {
  // Writes (environments.json, the key, Wheelhouse's known_hosts) one at a time; reads never wait behind a slow test.
  'environment/add': defineMethod(EnvironmentAddParams, z.object({}), 'Add or replace a remote environment by id (Codex; ssh:// and slurm schemes).', oneAtATime('environments')),
  'environment/info': defineMethod(EnvironmentRequest, EnvironmentInfoResult, "An environment's default folder and shell (Codex).", concurrent),
  'environment/status': defineMethod(EnvironmentRequest, EnvironmentStatusResult, "An environment's connection status, without connecting (Codex).", concurrent),
  'environment/list': defineMethod(z.object({}), z.object({ data: z.array(EnvironmentSummary) }), 'Every environment, local first (ours).', concurrent),
  'environment/remove': defineMethod(EnvironmentRequest, z.object({}), 'Remove an environment no thread or unfinished job uses (ours).', oneAtATime('environments')),
  'environment/test': defineMethod(EnvironmentTestParams, EnvironmentTestResult, 'Connect, run uname -a and id, time it (ours); trusting a host key writes its list.', oneAtATime('environments')),
} as const;

export const environmentNotifications = {
  'thread/environment/connected': defineNotification(EnvironmentConnectionNotification, "A thread's environment connected (Codex)."),
  'thread/environment/disconnected': defineNotification(EnvironmentConnectionNotification, "A thread's environment lost its connection (Codex)."),
  'environment/status/changed': defineNotification(EnvironmentStatusChangedNotification, "An environment's connection changed (ours)."),
} as const;
