import type { CodexSession, ReplyStep, ScriptedReply, SessionHome, SessionStep } from './session-types.js';

/**
 * The scripted sessions of the differential test: what a Codex client (the
 * VS Code extension's request shapes, `null` for every optional field) does,
 * with the model's every reply scripted. One definition each, shared by the
 * recorder (against Codex) and the CI test (against Wheelhouse).
 */

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

/** Commands run in the read-only sandbox and never ask. */
const READ_ONLY: SessionHome = { approvalPolicy: 'never', sandboxMode: 'read-only' };
/** Commands run in the workspace-write sandbox; escalation and `prompt` rules ask. */
const ON_REQUEST: SessionHome = { approvalPolicy: 'on-request', sandboxMode: 'workspace-write' };

const handshake: readonly SessionStep[] = [
  {
    kind: 'request',
    method: 'initialize',
    params: {
      clientInfo: { name: 'codex_vscode', title: 'Codex VS Code Extension', version: '0.169.0' },
      capabilities: { experimentalApi: true, optOutNotificationMethods: null },
    },
  },
  { kind: 'notify', method: 'initialized' },
];

/** A thread/start as the VS Code extension sends it: the approval policy and sandbox chosen in its settings. */
function startThread(home: SessionHome): SessionStep {
  return {
    kind: 'request',
    method: 'thread/start',
    params: {
      model: null,
      modelProvider: null,
      cwd: '<cwd>',
      approvalPolicy: home.approvalPolicy,
      sandbox: home.sandboxMode,
      config: null,
      baseInstructions: null,
      developerInstructions: null,
      personality: null,
      ephemeral: null,
      experimentalRawEvents: false,
    },
  };
}

function turnStart(threadId: string, prompt: string): SessionStep {
  return {
    kind: 'request',
    method: 'turn/start',
    params: { threadId, input: text(prompt), cwd: null, approvalPolicy: null, sandboxPolicy: null, model: null, effort: null, summary: null, outputSchema: null },
  };
}

/** A turn from start to `turn/completed`. */
function turn(threadId: string, prompt: string): SessionStep[] {
  return [turnStart(threadId, prompt), { kind: 'await', method: 'turn/completed' }];
}

const readThread = (threadId: string): SessionStep => ({ kind: 'request', method: 'thread/read', params: { threadId, includeTurns: true } });

const say = (...pieces: string[]): ScriptedReply => [
  ...pieces.map((t): ReplyStep => ({ type: 'text', text: t })),
  { type: 'finish', usage: { inputTokens: 40, cachedInputTokens: 8, outputTokens: 6, reasoningTokens: 0 } },
];

function execCommand(id: string, args: Record<string, unknown>): ScriptedReply {
  return [
    { type: 'toolCalls', calls: [{ id, name: 'exec_command', arguments: JSON.stringify({ yield_time_ms: 10_000, ...args }) }] },
    { type: 'finish', usage: { inputTokens: 30, outputTokens: 5 } },
  ];
}

const conformance: CodexSession = {
  name: 'conformance',
  summary: 'a turn with a command, reasoning and streamed text; read, list, name, archive, models, config, goals',
  home: READ_ONLY,
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    {
      kind: 'model',
      replies: [
        // The pause keeps the command alive after its output, so Codex always streams it (a command that exits at once sometimes does not).
        execCommand('call_list', { cmd: 'ls && sleep 1' }),
        [
          { type: 'reasoning', text: 'Looking at the folder.' },
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'from the mock.' },
          { type: 'finish', usage: { inputTokens: 120, cachedInputTokens: 64, outputTokens: 12, reasoningTokens: 4 } },
        ],
      ],
    },
    ...turn('<thread:1>', 'hi'),
    readThread('<thread:1>'),
    {
      kind: 'request',
      method: 'thread/list',
      params: { cursor: null, limit: null, sortKey: null, modelProviders: null, sourceKinds: null, archived: null, cwd: null, searchTerm: null },
    },
    { kind: 'request', method: 'thread/loaded/list', params: { cursor: null, limit: null } },
    { kind: 'request', method: 'thread/name/set', params: { threadId: '<thread:1>', name: 'Codex-shaped' } },
    { kind: 'request', method: 'model/list', params: { cursor: null, limit: null, includeHidden: null } },
    { kind: 'request', method: 'config/read', params: { cwd: null, includeLayers: false } },
    {
      kind: 'request',
      method: 'config/value/write',
      params: { keyPath: 'model_reasoning_effort', value: 'high', mergeStrategy: 'replace', filePath: null, expectedVersion: null },
    },
    {
      kind: 'request',
      method: 'config/batchWrite',
      params: { edits: [{ keyPath: 'model_reasoning_effort', value: 'medium', mergeStrategy: 'replace' }], filePath: null, expectedVersion: null },
    },
    // Paused: an active goal starts a continuation turn at once, racing the requests that follow.
    { kind: 'request', method: 'thread/goal/set', params: { threadId: '<thread:1>', objective: 'Keep going', status: 'paused', tokenBudget: null } },
    { kind: 'request', method: 'thread/goal/get', params: { threadId: '<thread:1>' } },
    { kind: 'request', method: 'thread/goal/clear', params: { threadId: '<thread:1>' } },
    { kind: 'request', method: 'thread/archive', params: { threadId: '<thread:1>' } },
    { kind: 'request', method: 'thread/unarchive', params: { threadId: '<thread:1>' } },
  ],
};

/** A command the exec policy asks about (a `prompt` rule for `touch`), answered `decision`. */
function ruleApproval(name: string, decision: 'accept' | 'decline'): CodexSession {
  return {
    name,
    summary: `a command a rule asks about (\`touch\`), ${decision === 'accept' ? 'accepted' : 'declined'} by the client`,
    home: { ...ON_REQUEST, rules: ['prefix_rule(pattern=["touch"], decision="prompt")'] },
    answers: { 'item/commandExecution/requestApproval': { decision } },
    steps: [
      ...handshake,
      startThread(ON_REQUEST),
      { kind: 'model', replies: [execCommand('call_touch', { cmd: 'touch approved.txt' }), say('Finished.')] },
      ...turn('<thread:1>', 'make a file'),
      readThread('<thread:1>'),
    ],
  };
}

const approvalEscalated: CodexSession = {
  name: 'approval-escalated',
  summary: 'a command the model asks to run outside the sandbox (`sandbox_permissions: "require_escalated"` with a justification), accepted',
  home: ON_REQUEST,
  answers: { 'item/commandExecution/requestApproval': { decision: 'accept' } },
  steps: [
    ...handshake,
    startThread(ON_REQUEST),
    {
      kind: 'model',
      replies: [
        execCommand('call_escalate', {
          cmd: 'mkdir ../escalated',
          sandbox_permissions: 'require_escalated',
          justification: 'Create a folder beside the project',
        }),
        say('Made it.'),
      ],
    },
    ...turn('<thread:1>', 'make a folder beside the project'),
    readThread('<thread:1>'),
  ],
};

const interrupt: CodexSession = {
  name: 'interrupt',
  summary: 'a turn interrupted while the model streams, then the thread read back',
  home: READ_ONLY,
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    { kind: 'model', replies: [[{ type: 'text', text: 'Working on it' }, { type: 'stall' }]] },
    turnStart('<thread:1>', 'a long job'),
    { kind: 'await', method: 'item/agentMessage/delta' },
    { kind: 'request', method: 'turn/interrupt', params: { threadId: '<thread:1>', turnId: '<turn:1>' } },
    { kind: 'await', method: 'turn/completed' },
    readThread('<thread:1>'),
  ],
};

const resumeFork: CodexSession = {
  name: 'resume-fork',
  summary: 'a thread with history (a command, text) resumed and forked after a restart, then a turn on the fork',
  home: READ_ONLY,
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    { kind: 'model', replies: [execCommand('call_echo', { cmd: 'echo history && sleep 1' }), say('Echoed.'), say('Second answer.')] },
    ...turn('<thread:1>', 'echo something'),
    ...turn('<thread:1>', 'and again'),
    { kind: 'restart' },
    ...handshake,
    {
      kind: 'request',
      method: 'thread/resume',
      params: { threadId: '<thread:1>', history: null, path: null, model: null, modelProvider: null, cwd: null, approvalPolicy: null, sandbox: null, config: null },
    },
    {
      kind: 'request',
      method: 'thread/fork',
      params: { threadId: '<thread:1>', path: null, model: null, modelProvider: null, cwd: null, approvalPolicy: null, sandbox: null, config: null },
    },
    { kind: 'model', replies: [say('On the fork.')] },
    ...turn('<thread:2>', 'continue on the fork'),
    readThread('<thread:2>'),
  ],
};

const queue: CodexSession = {
  name: 'queue',
  summary: 'messages queued while a turn runs: added, listed, reordered, deleted, then run in order',
  home: READ_ONLY,
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    {
      kind: 'model',
      replies: [
        [{ type: 'text', text: 'Working' }, { type: 'gate', name: 'first-turn' }, { type: 'text', text: ' done.' }, { type: 'finish' }],
        say('Second.'),
        say('Third.'),
      ],
    },
    turnStart('<thread:1>', 'first'),
    { kind: 'await', method: 'item/agentMessage/delta' },
    ...['one', 'two', 'three'].map(
      (n): SessionStep => ({
        kind: 'request',
        method: 'thread/queue/add',
        params: { threadId: '<thread:1>', clientUserMessageId: `client-${n}`, input: text(`queued ${n}`), responsesapiClientMetadata: null },
      }),
    ),
    { kind: 'request', method: 'thread/queue/list', params: { threadId: '<thread:1>', cursor: null, limit: null } },
    { kind: 'request', method: 'thread/queue/delete', params: { threadId: '<thread:1>', queuedSubmissionId: '<queuedSubmission:3>' } },
    {
      kind: 'request',
      method: 'thread/queue/reorder',
      params: { threadId: '<thread:1>', queuedSubmissionIds: ['<queuedSubmission:2>', '<queuedSubmission:1>'] },
    },
    { kind: 'release', gate: 'first-turn' },
    { kind: 'await', method: 'turn/completed' },
    { kind: 'await', method: 'turn/completed' },
    { kind: 'await', method: 'turn/completed' },
    { kind: 'request', method: 'thread/queue/list', params: { threadId: '<thread:1>', cursor: null, limit: null } },
    readThread('<thread:1>'),
  ],
};

const mcp: CodexSession = {
  name: 'mcp',
  summary: "an MCP server from npm (server-everything): its status listed and its `echo` tool called by the model",
  home: { ...READ_ONLY, mcpEverything: true },
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    {
      kind: 'model',
      replies: [
        [
          { type: 'toolCalls', calls: [{ id: 'call_mcp_echo', mcp: { server: 'everything', tool: 'echo' }, arguments: '{"message":"hello from the mock"}' }] },
          { type: 'finish' },
        ],
        say('The server echoed.'),
      ],
    },
    // The model is offered the server's tools once it is ready: the client waits until the list shows them.
    {
      kind: 'request',
      method: 'mcpServerStatus/list',
      params: { threadId: '<thread:1>', cursor: null, limit: null, detail: null, serverName: null },
      until: 'result.data[].tools.echo',
    },
    ...turn('<thread:1>', 'use the echo tool'),
    readThread('<thread:1>'),
  ],
};

const failingModel: CodexSession = {
  name: 'failing-model',
  summary: 'the model answers HTTP 500, then closes the stream mid-reply; each turn fails with an error',
  home: READ_ONLY,
  steps: [
    ...handshake,
    startThread(READ_ONLY),
    { kind: 'model', replies: [[{ type: 'httpError', status: 500 }], [{ type: 'text', text: 'partial' }, { type: 'cut' }]] },
    ...turn('<thread:1>', 'fails with a 500'),
    ...turn('<thread:1>', 'fails mid-stream'),
    readThread('<thread:1>'),
  ],
};

export const CODEX_SESSIONS: readonly CodexSession[] = [
  conformance,
  ruleApproval('approval-accepted', 'accept'),
  ruleApproval('approval-declined', 'decline'),
  approvalEscalated,
  interrupt,
  resumeFork,
  queue,
  mcp,
  failingModel,
];
