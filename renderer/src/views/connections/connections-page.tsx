import { Plug, X } from 'lucide-react';
import { useMcpStore } from '../../services/services.js';
import { McpServerList } from './mcp-server-list.js';
import './connections.css';

/** Connections: each MCP server with its state, error and tools; add, edit, enable/disable, restart, remove, trust. */
export function ConnectionsPage() {
  const setOpen = useMcpStore((s) => s.setOpen);
  return (
    <section className="connections" data-testid="connections-page" aria-label="Connections">
      <header className="connections-header">
        <Plug size={16} strokeWidth={1.9} aria-hidden="true" />
        <h1 className="connections-title">Connections</h1>
        <span className="connections-sub">MCP servers from config.toml</span>
        <button type="button" className="icon-button" aria-label="Close Connections" onClick={() => setOpen(false)}>
          <X size={15} aria-hidden="true" />
        </button>
      </header>
      <div className="connections-body">
        <McpServerList />
      </div>
    </section>
  );
}
