import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import type { EnvKeyLookup } from '../secrets/secret-store.js';
import { EnvironmentOnlySecretStore } from '../secrets/environment-secret-store.js';
import { createRuntime } from './create-runtime.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

describe('createRuntime (the host factory)', () => {
  it('hands the secret store chosen by the host the env_key of each provider in config.toml', () => {
    const home = temp.make();
    fs.writeFileSync(path.join(home, 'config.toml'), '[model_providers.acme]\nname = "Acme"\nbase_url = "https://acme.test/v1"\nenv_key = "ACME_KEY"\n');
    let lookup: EnvKeyLookup | undefined;
    const runtime = createRuntime({
      home,
      secretStore: (envKeyFor) => {
        lookup = envKeyFor;
        return new EnvironmentOnlySecretStore(envKeyFor);
      },
    });
    try {
      expect(runtime.services.secrets.kind).toBe('environment-only');
      expect(lookup?.('acme')).toBe('ACME_KEY');
      expect(lookup?.('no-such-provider')).toBeNull();
    } finally {
      runtime.close();
    }
  });

  it('leaves the home unlocked when a part cannot be opened, so the next start succeeds', () => {
    const home = temp.make();
    fs.mkdirSync(path.join(home, 'state.sqlite'));
    const secretStore = (envKeyFor: EnvKeyLookup) => new EnvironmentOnlySecretStore(envKeyFor);
    expect(() => createRuntime({ home, secretStore })).toThrow();
    fs.rmdirSync(path.join(home, 'state.sqlite'));
    const runtime = createRuntime({ home, secretStore });
    runtime.close();
  });
});
