import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigEdit } from '../../shared/protocol/index.js';
import { TempDirs } from '../../test-support/temp-dir.js';
import { ConfigError } from './config-error.js';
import { loadConfigFile } from './config-file.js';
import { ConfigService } from './config-service.js';
import { KeyPathError } from './key-path.js';

const temp = new TempDirs();
afterEach(() => temp.cleanup());

function configFile(text?: string): string {
  const file = path.join(temp.make(), 'config.toml');
  if (text !== undefined) fs.writeFileSync(file, text);
  return file;
}

const CODEX_STYLE = `# my settings
model = "deepseek-reasoner"
model_provider = "local"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
notify = ["say", "done"]            # a key Wheelhouse does not know
when = 1979-05-27T07:32:00Z

[model_providers.local]
name = "My box"
base_url = "http://127.0.0.1:8080/v1"
wire_api = "responses"
env_key = "LOCAL_KEY"
request_max_retries = 2
stream_max_retries = 3
stream_idle_timeout_ms = 60000
query_params = { "api-version" = "2025-01-01" }

[model_providers.local.http_headers]
X-Team = "blue"

[profiles.fast]
model = "deepseek-chat"
`;

describe('loading config.toml', () => {
  it('reads the Codex keys a person writes', () => {
    const snapshot = loadConfigFile(configFile(CODEX_STYLE));
    expect(snapshot.error).toBeNull();
    expect(snapshot.config.model).toBe('deepseek-reasoner');
    expect(snapshot.config.model_provider).toBe('local');
    expect(snapshot.config.approval_policy).toBe('on-request');
    expect(snapshot.config.sandbox_mode).toBe('workspace-write');
    expect(snapshot.config.model_providers?.['local']).toMatchObject({
      name: 'My box',
      base_url: 'http://127.0.0.1:8080/v1',
      wire_api: 'responses',
      env_key: 'LOCAL_KEY',
      request_max_retries: 2,
      stream_max_retries: 3,
      stream_idle_timeout_ms: 60000,
      http_headers: { 'X-Team': 'blue' },
    });
  });

  it('treats a missing file as all defaults', () => {
    const snapshot = loadConfigFile(configFile());
    expect(snapshot).toMatchObject({ config: {}, document: {}, error: null });
  });

  it('names the line and column of a syntax error and falls back to defaults', () => {
    const file = configFile('model = "deepseek-chat"\n\n[model_providers.local]\nbase_url = http://oops\n');
    const snapshot = loadConfigFile(file);
    expect(snapshot.config).toEqual({});
    expect(snapshot.error).toBeInstanceOf(ConfigError);
    expect(snapshot.error).toMatchObject({ kind: 'syntax', line: 4, column: 12, filePath: file });
    expect(snapshot.error?.message).toContain('line 4, column 12');
    expect(snapshot.error?.toLoadError()).toEqual({
      message: snapshot.error?.message,
      line: 4,
      column: 12,
      keyPath: null,
    });
  });

  it('names the key path of a bad value, ignores only that value and keeps the rest', () => {
    const file = configFile(
      [
        'model = "deepseek-chat"',
        'approval_policy = "sometimes"',
        '[model_providers.local]',
        'base_url = "ftp://example.com"',
        '[model_providers.other]',
        'base_url = "http://10.1.2.3:9000/v1"',
        'request_max_retries = 2.5',
      ].join('\n'),
    );
    const snapshot = loadConfigFile(file);
    expect(snapshot.error?.kind).toBe('invalid');
    expect(snapshot.error?.keyPath).toBe('approval_policy');
    expect(snapshot.error?.message).toContain('approval_policy:');
    expect(snapshot.error?.message).toContain('model_providers.local.base_url: must be an http:// or https:// URL');
    expect(snapshot.error?.message).toContain('model_providers.other.request_max_retries: must be a whole number');
    expect(snapshot.config.model).toBe('deepseek-chat');
    expect(snapshot.config.approval_policy).toBeUndefined();
    // A provider without a usable base_url cannot exist; the other keeps its good values.
    expect(snapshot.config.model_providers?.['local']).toBeUndefined();
    expect(snapshot.config.model_providers?.['other']).toMatchObject({ base_url: 'http://10.1.2.3:9000/v1' });
    // The raw document still holds everything, so a later write does not lose the person's text.
    expect(snapshot.document['approval_policy']).toBe('sometimes');
  });

  it('reports a model_provider that names no provider', () => {
    const snapshot = loadConfigFile(configFile('model_provider = "nowhere"\n'));
    expect(snapshot.error?.keyPath).toBe('model_provider');
    expect(snapshot.error?.message).toContain('unknown provider "nowhere"');
    expect(snapshot.config.model_provider).toBeUndefined();
  });
});

describe('writing config.toml', () => {
  it('keeps unknown keys and values through a read-modify-write; comments are dropped', () => {
    const file = configFile(CODEX_STYLE);
    const service = new ConfigService(file);
    service.applyEdits([{ keyPath: 'model', value: 'deepseek-chat' }]);
    const text = fs.readFileSync(file, 'utf8');
    const written = parse(text);
    const original = parse(CODEX_STYLE);
    expect(written).toEqual({ ...original, model: 'deepseek-chat' });
    // smol-toml does not keep comments: a file Wheelhouse writes loses them (documented).
    expect(text).not.toContain('# my settings');
    expect(service.current().config.model).toBe('deepseek-chat');
  });

  it('creates the file and nested tables, upserts tables and removes keys with null', () => {
    const file = configFile();
    const service = new ConfigService(file);
    service.applyEdits([
      { keyPath: 'model_providers.local.base_url', value: 'http://localhost:8000/v1' },
      { keyPath: 'model_providers.local.name', value: 'Local' },
      { keyPath: 'model_provider', value: 'local' },
    ]);
    service.applyEdits([
      { keyPath: 'model_providers.local', value: { wire_api: 'responses', name: null }, mergeStrategy: 'upsert' },
    ]);
    expect(parse(fs.readFileSync(file, 'utf8'))).toEqual({
      model_provider: 'local',
      model_providers: { local: { base_url: 'http://localhost:8000/v1', wire_api: 'responses' } },
    });
    service.applyEdits([{ keyPath: 'model_providers.local', value: { base_url: 'https://x.example/v1' } }]);
    expect(service.current().config.model_providers?.['local']).toEqual({ base_url: 'https://x.example/v1' });
  });

  it('writes nothing when any edit of a batch is bad, and names its key path', () => {
    const file = configFile('model = "deepseek-chat"\n');
    const service = new ConfigService(file);
    const before = fs.readFileSync(file, 'utf8');
    let failure: unknown;
    try {
      service.applyEdits([
        { keyPath: 'model', value: 'deepseek-reasoner' },
        { keyPath: 'model_providers.local.base_url', value: 'not a url' },
      ]);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ConfigError);
    expect(failure).toMatchObject({ kind: 'invalid', keyPath: 'model_providers.local.base_url' });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['config.toml']);
  });

  it('refuses to rewrite a malformed file, pointing at the line to fix', () => {
    const file = configFile('model = \n');
    const service = new ConfigService(file);
    expect(() => service.applyEdits([{ keyPath: 'model', value: 'x' }])).toThrow(/line 1, column \d+/);
    expect(fs.readFileSync(file, 'utf8')).toBe('model = \n');
  });

  it('refuses keys that would hold a credential, anywhere in the edit', () => {
    const service = new ConfigService(configFile());
    const attempts: ConfigEdit[] = [
      { keyPath: 'model_providers.deepseek.api_key', value: 'sk-1' },
      { keyPath: 'model_providers.deepseek', value: { experimental_bearer_token: 'sk-1' } },
      { keyPath: 'model_providers.deepseek.http_headers', value: { Authorization: 'Bearer sk-1' } },
      { keyPath: 'model_providers.deepseek.http_headers.x-api-key', value: 'sk-1' },
    ];
    for (const edit of attempts) {
      expect(() => service.applyEdits([edit]), edit.keyPath).toThrow(KeyPathError);
    }
    expect(() => service.applyEdits([{ keyPath: 'a..b', value: 1 }])).toThrow(/not a valid key/);
    expect(() => service.applyEdits([{ keyPath: 'model.__proto__', value: 1 }])).toThrow(/not a valid key/);
  });

  it('sees a hand edit made while it runs', () => {
    const file = configFile('model = "one"\n');
    const service = new ConfigService(file);
    expect(service.model()).toBe('one');
    fs.writeFileSync(file, 'model = "two-longer"\n');
    expect(service.model()).toBe('two-longer');
  });
});
