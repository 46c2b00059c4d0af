import { CircleAlert, CircleCheck, CircleSlash, LoaderCircle, Plug, Plus, RotateCw, X } from 'lucide-react';
import { useState } from 'react';
import type { McpServerStatus } from '../../../../shared/protocol/methods/mcp.js';
import { useMcpStore } from '../../services.js';
import { useConfirmStore } from '../../stores/confirm-store.js';
import type { McpServerDraft } from '../../stores/mcp-store.js';
import './connections.css';

/** Connections: each MCP server with its state, error and tools; add, edit, enable/disable, restart, remove. */
export function ConnectionsPage() {
  const servers = useMcpStore((s) => s.servers);
  const setOpen = useMcpStore((s) => s.setOpen);
  const [adding, setAdding] = useState(false);
  return (
    <section className="connections" data-testid="connections-page" aria-label="Connections">
      <header className="connections-header">
        <Plug size={16} strokeWidth={1.9} aria-hidden="true" />
        <h1 className="connections-title">Connections</h1>
        <span className="connections-sub">MCP servers from config.toml</span>
        <button type="button" className="button button-primary button-small" data-testid="mcp-add" onClick={() => setAdding(true)}>
          <Plus size={14} aria-hidden="true" />
          Add server
        </button>
        <button type="button" className="icon-button" aria-label="Close Connections" onClick={() => setOpen(false)}>
          <X size={15} aria-hidden="true" />
        </button>
      </header>
      <div className="connections-body">
        {adding && <ServerForm onDone={() => setAdding(false)} />}
        {servers.length === 0 && !adding && (
          <p className="connections-empty">No MCP servers yet. Add one to give the agent its tools.</p>
        )}
        {servers.map((server) => (
          <ServerCard key={server.name} server={server} />
        ))}
      </div>
    </section>
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
      {tools.length > 0 && (
        <ul className="mcp-tools" aria-label={`${server.name} tools`}>
          {tools.map((tool) => (
            <li key={tool} className="mcp-tool" title={server.tools[tool]?.description ?? undefined}>
              {tool}
            </li>
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
