import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { TempDirs } from '../../test-support/temp-dir.js';
import { codeWhaleEdits, defaultCodeWhalePath, readCodeWhaleConfig } from './codewhale-import.js';
import { ConfigError } from './config-error.js';
import { ConfigService } from './config-service.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

const CODEWHALE = `provider = "moonshot"

[providers.deepseek]
api_key_env = "DEEPSEEK_API_KEY"
model = "deepseek-reasoner"

[providers.moonshot]
api_key_env = "MOONSHOT_API_KEY"
base_url = "https://api.moonshot.ai/v1"
model = "kimi-k2"
api_key = "sk-plaintext-should-not-travel"

[providers.broken]
api_key_env = "BROKEN"

[providers."has space"]
base_url = "https://x.example/v1"

[providers.badenv]
base_url = "https://y.example/v1"
api_key_env = "not valid!"
`;

function codeWhaleFile(text: string): string {
  const dir = path.join(temp.make(), '.codewhale');
  fs.mkdirSync(dir);
  const file = path.join(dir, 'config.toml');
  fs.writeFileSync(file, text);
  return file;
}

describe('reading a CodeWhale config', () => {
  it('lives in ~/.codewhale/config.toml', () => {
    expect(defaultCodeWhalePath('/home/ana')).toBe(path.join('/home/ana', '.codewhale', 'config.toml'));
  });

  it('takes [providers.<name>] tables and says what it skipped and why', () => {
    const plan = readCodeWhaleConfig(codeWhaleFile(CODEWHALE));
    expect(plan.providers).toEqual([
      { id: 'deepseek', baseUrl: null, envKey: 'DEEPSEEK_API_KEY', model: 'deepseek-reasoner' },
      { id: 'moonshot', baseUrl: 'https://api.moonshot.ai/v1', envKey: 'MOONSHOT_API_KEY', model: 'kimi-k2' },
    ]);
    expect(plan.defaultProvider).toBe('moonshot');
    expect(plan.skipped).toEqual([
      { name: 'moonshot.api_key', reason: 'API keys are not copied; enter the key in Settings' },
      { name: 'broken', reason: 'no base_url' },
      { name: 'has space', reason: 'the name may contain only letters, digits, "-" and "_"' },
      { name: 'badenv', reason: 'api_key_env must be an environment variable name (letters, digits and "_")' },
    ]);
  });

  it('fails clearly on a missing or malformed file', () => {
    const missing = path.join(temp.make(), 'nope.toml');
    expect(() => readCodeWhaleConfig(missing)).toThrow(`No CodeWhale config at ${missing}`);
    let failure: unknown;
    try {
      readCodeWhaleConfig(codeWhaleFile('[providers.a]\nbase_url = \n'));
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure).toMatchObject({ kind: 'syntax', line: 2 });
  });
});

describe('importing into config.toml', () => {
  it('upserts providers, keeps what was there, and picks the default only when none is chosen', () => {
    const file = path.join(temp.make(), 'config.toml');
    fs.writeFileSync(file, '[model_providers.moonshot]\nname = "Kimi"\nstream_max_retries = 1\n\n[tui]\ntheme = "dark"\n');
    const service = new ConfigService(file);
    const plan = readCodeWhaleConfig(codeWhaleFile(CODEWHALE));
    const { edits, modelProvider, model } = codeWhaleEdits(plan, false);
    expect([modelProvider, model]).toEqual(['moonshot', 'kimi-k2']);
    service.applyEdits(edits);
    const written = parse(fs.readFileSync(file, 'utf8'));
    expect(written).toEqual({
      model_provider: 'moonshot',
      model: 'kimi-k2',
      model_providers: {
        moonshot: {
          name: 'Kimi',
          stream_max_retries: 1,
          base_url: 'https://api.moonshot.ai/v1',
          env_key: 'MOONSHOT_API_KEY',
          wire_api: 'chat',
          default_model: 'kimi-k2',
        },
        deepseek: { env_key: 'DEEPSEEK_API_KEY', wire_api: 'chat', default_model: 'deepseek-reasoner' },
      },
      tui: { theme: 'dark' },
    });
    expect(fs.readFileSync(file, 'utf8')).not.toContain('sk-plaintext');
    expect(service.provider('moonshot')).toMatchObject({ name: 'Kimi', envKey: 'MOONSHOT_API_KEY', defaultModel: 'kimi-k2' });

    const again = codeWhaleEdits(plan, true);
    expect([again.modelProvider, again.model]).toEqual([null, null]);
    expect(again.edits.map((edit) => edit.keyPath)).toEqual(['model_providers.deepseek', 'model_providers.moonshot']);
  });

  it('makes the only provider the default when CodeWhale names none', () => {
    const plan = readCodeWhaleConfig(codeWhaleFile('[providers.local]\nbase_url = "http://127.0.0.1:8080/v1"\n'));
    const { modelProvider, model, edits } = codeWhaleEdits(plan, false);
    expect([modelProvider, model]).toEqual(['local', null]);
    expect(edits).toContainEqual({ keyPath: 'model', value: null });
  });
});
