import { spawn } from 'node:child_process';

/** A `wheelhouse serve` process started for one test. */
export interface RuntimeProcess {
  /** The page URL the server printed, token included. */
  readonly url: string;
  /** Stops the server (SIGTERM, then SIGKILL after a grace period) and waits for it to exit. */
  stop(): Promise<void>;
}

const READY_PATTERN = /Wheelhouse is running at (http:\/\/\S+)/;

/** Starts `node bin/wheelhouse.mjs serve --port 0` with its own home and resolves with the URL it prints. */
export function startRuntimeProcess(repoRoot: string, home: string, timeoutMs = 20_000): Promise<RuntimeProcess> {
  // Jobs a spec started end with its server: nothing is left running after the spec.
  const child = spawn(process.execPath, ['bin/wheelhouse.mjs', 'serve', '--port', '0', '--stop-jobs-on-exit'], {
    cwd: repoRoot,
    // Keys typed in the UI go to the home's private file (as on a machine without a keychain), never the tester's keychain.
    env: { ...withoutProviderKeys(process.env), WHEELHOUSE_KEY_STORAGE: 'file', WHEELHOUSE_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
  };

  return new Promise<RuntimeProcess>((resolve, reject) => {
    const onEarlyExit = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`exited before it was ready (code ${code}, signal ${signal})`);
    const fail = (reason: string) => {
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      void stop();
      reject(new Error(`wheelhouse serve ${reason}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`printed no URL within ${timeoutMs} ms`), timeoutMs);
    child.once('exit', onEarlyExit);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const url = READY_PATTERN.exec(stdout)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      resolve({ url, stop });
    });
  });
}

/** The environment without built-in providers' keys, so a fresh home always starts at first run. */
function withoutProviderKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DEEPSEEK_API_KEY: _deepseek, OPENAI_API_KEY: _openai, ...rest } = env;
  return rest;
}
