import { afterEach } from 'vitest';
import { enableWireConformance, formatViolation } from './wire-conformance.js';

/**
 * Vitest setup file: every message a test peer (stdio, WebSocket) sends or
 * receives is checked against Codex's schema, and the test during which an
 * invalid one passed fails, naming the method and the JSON path.
 */
const run = enableWireConformance();

afterEach(() => {
  const violations = run.takeViolations();
  if (violations.length === 0) return;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  throw new Error(`Codex conformance: ${formatViolation(violations[0]!)}${more}`);
});
