import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../../test-support/temp-dir.js';
import { waitUntil } from '../../../test-support/waiting.js';
import { PolicyService } from './rules-service.js';

/**
 * A rules folder that cannot be watched is not a silent stop of reloads: the
 * list says so (watchError), listeners hear it, and the watch is tried again
 * until it holds, picking up what changed meanwhile.
 */
const temp = new TempDirs();
const services: PolicyService[] = [];
afterEach(() => {
  for (const service of services.splice(0)) service.close();
  temp.cleanup();
});

describe('watching the rules folder', () => {
  it('reports a watch that cannot start, retries, and reloads once it holds', async () => {
    const home = temp.make();
    // A file where the rules folder belongs: the folder can be neither made nor watched.
    fs.writeFileSync(path.join(home, 'rules'), 'not a folder');
    const changes: unknown[] = [];
    const service = new PolicyService({ home, onRulesChanged: (problems) => changes.push(problems) });
    services.push(service);
    const engine = await service.engine();
    engine.watchRetryMs = 20;

    const broken = await service.list();
    expect(broken.watchError).toMatch(/rules folder .* cannot be watched .*not picked up until it can; retrying$/);
    expect(changes.length).toBeGreaterThan(0);

    fs.rmSync(path.join(home, 'rules'));
    fs.mkdirSync(path.join(home, 'rules'));
    fs.writeFileSync(path.join(home, 'rules', 'team.rules'), 'prefix_rule(pattern = ["make"], decision = "allow")\n');
    const healed = await waitUntil(async () => {
      const list = await service.list();
      return list.watchError === null && list.rules.length > 0 ? list : undefined;
    }, { what: 'the watch to hold again and the new rule to load' });
    expect(healed.rules.map((rule) => rule.pattern)).toEqual([['make']]);
  });

  it('is null while the folder is watched', async () => {
    const service = new PolicyService({ home: temp.make(), onRulesChanged: () => undefined });
    services.push(service);
    expect((await service.list()).watchError).toBeNull();
  });
});
