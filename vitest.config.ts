import { defineConfig } from 'vitest/config';

/**
 * Unit and integration tests (`npx vitest run`). The browser/Electron specs
 * under e2e/ have their own config (vitest.e2e.config.ts).
 */
export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'e2e/**', 'release/**', 'dist-electron/**', '.wheelhouse-dev/**'],
    environment: 'node',
    // better-sqlite3 handles and spawned child processes are safest in separate processes.
    pool: 'forks',
    // Carrier tests spawn real processes; these bound a hang, they are not expected durations.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 15_000,
    // Tests wait with test-support/waiting.ts; should one use expect.poll, it waits as long as the test may.
    expect: { poll: { timeout: 30_000 } },
    // Carrier tests run the built CLI; build dist/node/cli.js when missing or stale.
    globalSetup: ['test-support/global-setup.ts'],
    // A test fails if it leaves a process, socket, server, timer or wait behind (listed first, its
    // afterEach runs after every other: hooks run as a stack); every message the stdio and WebSocket
    // carrier tests exchange is checked against Codex's schema.
    setupFiles: ['test-support/leak-check-setup.ts', 'test-support/wire-conformance-setup.ts'],
  },
});
