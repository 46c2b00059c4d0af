import { CircleAlert, CircleCheck, CircleSlash, LoaderCircle, Plus, RotateCw, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import type { McpServerStatus } from '../../../../shared/protocol/methods/mcp.js';
import { useMcpStore } from '../../services/services.js';
import { useConfirmStore } from '../../stores/confirm-store.js';
import type { McpApprovalMode, McpServerDraft } from '../../stores/mcp-store.js';
import './connections.css';

/**
 * The MCP servers of config.toml with everything a person can do to them (add,
 * edit, enable/disable, restart, remove, and how far the agent's calls are
 * trusted, per server and per tool). Shown on the Connections page and in Settings.
 */
export function McpServerList() {
  const servers = useMcpStore((s) => s.servers);
  const [adding, setAdding] = useState(false);
  return (
    <div className="mcp-server-list">
      <div className="mcp-list-toolbar">
        <button type="button" className="button button-primary button-small" data-testid="mcp-add" disabled={adding} onClick={() => setAdding(true)}>
          <Plus size={14} aria-hidden="true" />
          Add server
        </button>
      </div>
      {adding && <ServerForm onDone={() => setAdding(false)} />}
      {servers.length === 0 && !adding && <p className="connections-empty">No MCP servers yet. Add one to give the agent its tools.</p>}
      {servers.map((server) => (
        <ServerCard key={server.name} server={server} />
      ))}
    </div>
  );
}

function stateOf(server: McpServerStatus): { label: string; kind: 'ok' | 'busy' | 'failed' | 'off' } {
  switch (server.runtimeStatus) {
    case 'connected':
      return { label: 'Ready', kind: 'ok' };
    case 'starting':
      return { label: 'Starting', kind: 'busy' };
    case 'failed':
      return { label: 'Failed', kind: 'failed' };
    case 'disabled':
      return { label: 'Disabled', kind: 'off' };
    case 'cancelled':
      return { label: 'Cancelled', kind: 'off' };
    default:
      return { label: 'Not started', kind: 'off' };
  }
}

function ServerCard({ server }: { readonly server: McpServerStatus }) {
  const { restart, setEnabled, remove } = useMcpStore.getState();
  const confirm = useConfirmStore((s) => s.ask);
  const [editing, setEditing] = useState(false);
  const state = stateOf(server);
  const tools = Object.keys(server.tools).sort();
  const where = server.settings.transport === 'stdio'
    ? [server.settings.command, ...server.settings.args].join(' ')
    : (server.settings.url ?? '');
  return (
    <article className="mcp-server" data-testid="mcp-server" data-name={server.name} data-state={state.kind}>
      <div className="mcp-server-head">
        <StateIcon kind={state.kind} />
        <span className="mcp-server-name">{server.name}</span>
        <span className={`mcp-server-state mcp-state-${state.kind}`}>{state.label}</span>
        <span className="mcp-server-where" title={where}>{where}</span>
        <div className="mcp-server-actions">
          <button type="button" className="button-ghost" disabled={!server.settings.enabled} onClick={() => void restart(server.name)}>
            <RotateCw size={13} aria-hidden="true" />
            Restart
          </button>
          <button type="button" className="button-ghost" onClick={() => void setEnabled(server.name, !server.settings.enabled)}>
            {server.settings.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" className="button-ghost" onClick={() => setEditing(!editing)}>
            Edit
          </button>
          <button
            type="button"
            className="button-ghost mcp-remove"
            onClick={() =>
              void confirm({
                title: `Remove ${server.name}?`,
                message: 'Its [mcp_servers] table is deleted from config.toml and the server is stopped.',
                confirmLabel: 'Remove',
                danger: true,
              }).then((yes: boolean) => (yes ? remove(server.name) : undefined))
            }
          >
            Remove
          </button>
        </div>
      </div>
      {server.toolsError && <p className="mcp-server-error" data-testid="mcp-server-error">{server.toolsError}</p>}
      {editing && <ServerForm existing={server} onDone={() => setEditing(false)} />}
      <ApprovalModeField server={server} />
      {tools.length > 0 && (
        <ul className="mcp-tools" aria-label={`${server.name} tools`}>
          {tools.map((tool) => (
            <ToolChip key={tool} server={server} tool={tool} />
          ))}
        </ul>
      )}
    </article>
  );
}

function StateIcon({ kind }: { readonly kind: 'ok' | 'busy' | 'failed' | 'off' }) {
  if (kind === 'ok') return <CircleCheck size={15} className="mcp-state-ok" aria-hidden="true" />;
  if (kind === 'busy') return <LoaderCircle size={15} className="spin" aria-hidden="true" />;
  if (kind === 'failed') return <CircleAlert size={15} className="mcp-state-failed" aria-hidden="true" />;
  return <CircleSlash size={15} className="mcp-state-off" aria-hidden="true" />;
}

const APPROVAL_MODES: ReadonlyArray<{ readonly mode: McpApprovalMode; readonly label: string }> = [
  { mode: 'auto', label: 'Ask unless the tool says it only reads (default)' },
  { mode: 'writes', label: 'Ask for every tool not marked read-only' },
  { mode: 'prompt', label: 'Ask before every call' },
  { mode: 'approve', label: 'Trust this server: never ask' },
];

/** When the agent's calls of this server's tools wait for the person (`default_tools_approval_mode`). */
function ApprovalModeField({ server }: { readonly server: McpServerStatus }) {
  const setServerApproval = useMcpStore((s) => s.setServerApproval);
  const id = `mcp-approval-${server.name}`;
  return (
    <div className="mcp-approval">
      <label htmlFor={id} className="mcp-approval-label">
        Agent’s tool calls
      </label>
      <select
        id={id}
        className="field-input mcp-approval-select"
        data-testid="mcp-approval-mode"
        value={server.settings.defaultToolsApprovalMode}
        onChange={(event) => void setServerApproval(server.name, event.target.value as McpApprovalMode)}
      >
        {APPROVAL_MODES.map(({ mode, label }) => (
          <option key={mode} value={mode}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

const readOnly = (server: McpServerStatus, tool: string) =>
  (server.tools[tool]?.annotations as { readOnlyHint?: unknown } | null | undefined)?.readOnlyHint === true;

/** One tool: its name, whether it only reads, and a switch that trusts it (`approval_mode = "approve"`). */
function ToolChip({ server, tool }: { readonly server: McpServerStatus; readonly tool: string }) {
  const setToolTrusted = useMcpStore((s) => s.setToolTrusted);
  const trusted = server.settings.toolApprovalModes[tool] === 'approve';
  return (
    <li className="mcp-tool" data-trusted={trusted || undefined} title={server.tools[tool]?.description ?? undefined}>
      <span>{tool}</span>
      {readOnly(server, tool) && <span className="mcp-tool-hint">read-only</span>}
      <button
        type="button"
        className="mcp-tool-trust"
        aria-pressed={trusted}
        aria-label={`Trust ${tool}: the agent calls it without asking`}
        data-testid="mcp-tool-trust"
        onClick={() => void setToolTrusted(server.name, tool, !trusted)}
      >
        <ShieldCheck size={12} aria-hidden="true" />
        {trusted ? 'Trusted' : 'Trust'}
      </button>
    </li>
  );
}

/** Add a server, or change where an existing one runs. */
function ServerForm({ existing, onDone }: { readonly existing?: McpServerStatus; readonly onDone: () => void }) {
  const save = useMcpStore((s) => s.save);
  const [draft, setDraft] = useState<McpServerDraft>({
    name: existing?.name ?? '',
    command: existing?.settings.command ?? '',
    args: existing?.settings.args.join('\n') ?? '',
    url: existing?.settings.url ?? '',
  });
  const [error, setError] = useState<string | null>(null);
  const field = (key: keyof McpServerDraft) => ({
    value: draft[key],
    onChange: (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value }),
  });
  return (
    <form
      className="mcp-form"
      data-testid="mcp-form"
      onSubmit={(event) => {
        event.preventDefault();
        void save(draft, existing !== undefined).then((outcome) => (outcome.ok ? onDone() : setError(outcome.message)));
      }}
    >
      <label className="field">
        <span className="field-label">Name</span>
        <input className="field-input field-mono" {...field('name')} disabled={existing !== undefined} placeholder="files" />
      </label>
      <label className="field">
        <span className="field-label">Command (stdio)</span>
        <input className="field-input field-mono" {...field('command')} placeholder="npx" />
      </label>
      <label className="field">
        <span className="field-label">Arguments, one per line</span>
        <textarea className="field-input field-mono mcp-args" rows={3} {...field('args')} placeholder={'-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes'} />
      </label>
      <label className="field">
        <span className="field-label">Or URL (streamable HTTP)</span>
        <input className="field-input field-mono" {...field('url')} placeholder="https://example.com/mcp" />
      </label>
      {error && <p className="field-error">{error}</p>}
      <div className="mcp-form-actions">
        <button type="button" className="button button-small button-ghost" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="button button-primary button-small">
          {existing ? 'Save' : 'Add'}
        </button>
      </div>
    </form>
  );
}
