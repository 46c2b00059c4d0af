import { defineConfig } from 'vitest/config';

/** End-to-end specs: the real server and real Chromium (or Electron), one file at a time. */
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits as long as the test may: its own 1 s default is a wall-time bound a loaded machine breaks.
    expect: { poll: { timeout: 60_000 } },
    fileParallelism: false,
  },
});
