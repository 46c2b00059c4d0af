import type { AnyNotification, ClientMethod, ParamsOf, Turn } from '../shared/protocol/index.js';
import type { RequestContext } from '../electron/runtime/context.js';
import { createModelClient } from '../electron/model/create-model-client.js';
import type { MockModelServer } from './mock-model/index.js';
import { mockProvider } from './mock-model/model-test-kit.js';
import { createTestRuntime } from './test-runtime.js';

const ctx: RequestContext = { session: { connectionId: 't', carrier: 'in-process', clientInfo: null, optOut: new Set() } };

/**
 * A real runtime in `home` whose agent is the mock model, for tests that drive it in-process:
 * `call` any method, `seen` every notification, wait for the `count`-th turn to complete or
 * for one turn by id. `onCleanup` receives its shutdown.
 */
export function mockAgentRuntime(mock: MockModelServer, home: string, onCleanup: (cleanup: () => Promise<void>) => void) {
  const runtime = createTestRuntime({
    home,
    validateResults: true,
    defaults: { cwd: home },
    bindModel: async () => ({ client: createModelClient(mockProvider(mock, 'chat')), model: 'deepseek-chat', contextWindow: 128_000 }),
  });
  onCleanup(() => runtime.shutdown());
  const seen: AnyNotification[] = [];
  runtime.events.subscribe((n) => seen.push(n));
  const call = <M extends ClientMethod>(m: M, p: ParamsOf<M>) => runtime.dispatcher.call(m, p, ctx);
  const completedTurns = () => seen.filter((n) => n.method === 'turn/completed').map((n) => (n.params as { turn: Turn }).turn);
  const waitFor = (pick: (turns: Turn[]) => Turn | undefined) =>
    new Promise<Turn>((resolve) => {
      const check = () => {
        const turn = pick(completedTurns());
        if (turn) resolve(turn);
        return turn !== undefined;
      };
      if (check()) return;
      const off = runtime.events.subscribe(() => {
        if (check()) off();
      });
    });
  /** The `count`-th turn of the runtime to complete. */
  const completed = (count: number) => waitFor((turns) => turns[count - 1]);
  /** The turn `turnId`, once completed. */
  const turnCompleted = (turnId: string) => waitFor((turns) => turns.find((turn) => turn.id === turnId));
  return { runtime, home, seen, call, completed, turnCompleted };
}
