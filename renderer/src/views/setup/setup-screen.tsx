import { CircleAlert, CircleCheck, LoaderCircle, ShipWheel, X, Zap } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { MISSING_API_KEY_PREFIX, type ConfigReadResult } from '../../../../shared/protocol/methods/config.js';
import { useSetupStore, useThreadsStore } from '../../services.js';
import { formFromConfig, formProblems, missingKeyAdvice, type ProviderForm } from '../../stores/setup-plan.js';
import type { TestState } from '../../stores/setup-store.js';
import { formatDuration } from '../../format/usage.js';
import { CodeWhaleImportPanel, CodeWhaleImportToggle } from './codewhale-import.js';
import { useFocusTrap } from '../common/use-focus-trap.js';
import { FolderField } from './folder-field.js';
import { McpServerList } from '../connections/mcp-server-list.js';
import { ProviderSection } from './provider-section.js';
import { RulesSection } from '../rules/rules-section.js';
import { NotificationsSection } from '../notifications/notifications-section.js';
import { DesktopAppSection } from '../desktop/desktop-app-section.js';
import './setup.css';

/**
 * First run and Settings: pick a provider (and key), a project folder, test
 * the connection with a real request, then start. Shown over the whole
 * window; first run can be put off, Settings closed.
 */
export function SetupScreen() {
  const mode = useSetupStore((s) => s.mode);
  const config = useSetupStore((s) => s.config);
  const loadError = useSetupStore((s) => s.loadError);
  const close = useSetupStore((s) => s.close);
  if (mode === 'hidden') return null;
  return (
    <div
      className="setup-backdrop"
      data-testid="setup-screen"
      data-mode={mode}
      onKeyDown={(event) => {
        // Settings can be dismissed (first run cannot); inner layers such as the folder browser handle their own Escape first.
        if (event.key === 'Escape' && mode === 'settings' && !event.defaultPrevented) {
          event.preventDefault();
          close();
        }
      }}
    >
      {config ? (
        <SetupCard config={config} firstRun={mode === 'firstRun'} />
      ) : loadError !== null ? (
        <LoadFailed message={loadError} />
      ) : (
        <div className="setup-card setup-loading">
          <LoaderCircle size={20} className="spin" aria-label="Loading settings" />
        </div>
      )}
    </div>
  );
}

/** The configuration could not be read: the runtime's message and a way to try again. */
function LoadFailed({ message }: { readonly message: string }) {
  const refresh = useSetupStore((s) => s.refresh);
  const retry = useRef<HTMLButtonElement>(null);
  useEffect(() => retry.current?.focus(), []);
  return (
    <div className="setup-card setup-loading setup-load-error" role="alertdialog" aria-modal="true" aria-label="Settings could not be loaded" data-testid="setup-load-error">
      <p className="callout callout-warning">
        <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
        <span>Settings could not be loaded: {message}</span>
      </p>
      <button ref={retry} type="button" className="button button-secondary" data-testid="setup-retry" onClick={() => void refresh()}>
        Retry
      </button>
    </div>
  );
}

function SetupCard({ config, firstRun }: { readonly config: ConfigReadResult; readonly firstRun: boolean }) {
  const test = useSetupStore((s) => s.test);
  const saving = useSetupStore((s) => s.saving);
  const testProvider = useSetupStore((s) => s.testProvider);
  const resetTest = useSetupStore((s) => s.resetTest);
  const saveProvider = useSetupStore((s) => s.saveProvider);
  const listFolder = useSetupStore((s) => s.listFolder);
  const close = useSetupStore((s) => s.close);
  const defer = useSetupStore((s) => s.defer);
  const finish = useSetupStore((s) => s.finish);
  const newThread = useThreadsStore((s) => s.newThread);
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const setProjectFolder = useThreadsStore((s) => s.setProjectFolder);

  const [form, setForm] = useState<ProviderForm>(() => formFromConfig(config));
  const [folder, setFolder] = useState(projectFolder ?? '');
  const [folderError, setFolderError] = useState<string | null>(null);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [showProblems, setShowProblems] = useState(false);
  const [busy, setBusy] = useState(false);
  const [importing, setImporting] = useState(false);
  const titleId = useId();
  const card = useRef<HTMLDivElement>(null);
  useFocusTrap(card);
  const problems = formProblems(form);

  // Focus starts in the first field, so the keyboard (and Escape) work from the moment the dialog opens.
  useEffect(() => {
    card.current?.querySelector<HTMLElement>('.setup-body input, .setup-body select, .setup-body textarea')?.focus();
  }, []);
  const visibleProblems = showProblems ? problems : {};

  // Start in the home folder when no project folder was chosen before (once: clearing the field later stays cleared).
  const prefilled = useRef(folder !== '');
  useEffect(() => {
    if (prefilled.current) return;
    prefilled.current = true;
    void listFolder(null).then((result) => {
      if (result.ok) setFolder((current) => current || result.listing.path);
    });
  }, [listFolder]);

  const change = (patch: Partial<ProviderForm>) => {
    setForm((current) => ({ ...current, ...patch }));
    setSubmitError(null);
    resetTest();
  };

  /** Checks the folder; returns its normalised path, or null with the error shown. */
  const checkFolder = async (path: string): Promise<string | null> => {
    if (path.trim() === '') {
      setFolderError('Choose the folder the agent should work in.');
      return null;
    }
    const result = await listFolder(path.trim());
    if (!result.ok) {
      setFolderError(result.message);
      return null;
    }
    setFolderError(null);
    return result.listing.path;
  };

  const runTest = () => {
    setShowProblems(true);
    if (Object.keys(problems).length === 0) void testProvider(form);
  };

  const submit = async () => {
    setShowProblems(true);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const path = await checkFolder(folder);
      if (path === null) return;
      const problem = await saveProvider(form);
      if (problem !== null) {
        setSubmitError(problem);
        return;
      }
      if (firstRun) await newThread(path);
      else setProjectFolder(path);
      finish();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div ref={card} className="setup-card" role="dialog" aria-modal="true" aria-labelledby={titleId}>
      <header className="setup-head">
        <span className="setup-mark" aria-hidden="true">
          <ShipWheel size={20} strokeWidth={1.7} />
        </span>
        <div className="setup-head-text">
          <h1 id={titleId} className="setup-title">
            {firstRun ? 'Set up Wheelhouse' : 'Settings'}
          </h1>
          <p className="setup-subtitle">
            {firstRun
              ? 'Connect a model and pick a project. It takes a minute, and you can change it later in Settings.'
              : 'The model provider new turns use, the folder new threads start in, MCP servers and command rules.'}
          </p>
        </div>
        {!firstRun && (
          <button type="button" className="icon-button setup-close" aria-label="Close settings" data-testid="setup-close" onClick={close}>
            <X size={16} strokeWidth={2} aria-hidden="true" />
          </button>
        )}
      </header>

      <div className="setup-body">
        {config.loadError && (
          <p className="callout callout-warning">
            <CircleAlert size={16} strokeWidth={2} className="callout-icon" aria-hidden="true" />
            <span>
              Part of {config.filePath} could not be used: {config.loadError.message}
            </span>
          </p>
        )}
        <section className="setup-step" aria-labelledby="step-provider">
          <div className="setup-step-head">
            <StepTitle id="step-provider" number={1} title="Model provider" />
            <CodeWhaleImportToggle firstRun={firstRun} open={importing} onToggle={() => setImporting((open) => !open)} />
          </div>
          {importing && (
            <CodeWhaleImportPanel
              onImported={(imported, result) => {
                // Show the provider the import made the default; otherwise keep what the person has typed.
                if (result.modelProvider !== null) setForm(formFromConfig(imported));
              }}
            />
          )}
          <ProviderSection form={form} config={config} problems={visibleProblems} onChange={change} />
          <TestRow test={test} disabled={saving || busy} onTest={runTest} keyAdvice={missingKeyAdvice(form, config)} />
        </section>

        <section className="setup-step" aria-labelledby="step-folder">
          <StepTitle id="step-folder" number={2} title={firstRun ? 'Project folder' : 'Folder for new threads'} />
          <p className="setup-step-text">The agent can read and search the files in this folder, and nothing outside it.</p>
          <FolderField
            value={folder}
            error={folderError}
            onChange={(path) => {
              setFolder(path);
              setFolderError(null);
            }}
            onCommit={(path) => void checkFolder(path)}
          />
        </section>

        {!firstRun && (
          <section className="setup-step" aria-labelledby="step-connections" data-testid="settings-connections">
            <StepTitle id="step-connections" number={3} title="Connections (MCP servers)" />
            <p className="setup-step-text">The same servers as the Connections page. Changes here are saved to config.toml at once.</p>
            <McpServerList />
          </section>
        )}
        {!firstRun && <RulesSection headingId="step-rules" number={4} />}
        {!firstRun && <NotificationsSection number={5} />}
        {!firstRun && <DesktopAppSection number={6} />}
      </div>

      <footer className="setup-foot">
        {submitError && (
          <p className="field-error setup-foot-error" role="alert">
            {submitError}
          </p>
        )}
        {firstRun ? (
          <button type="button" className="button-ghost" data-testid="setup-later" onClick={defer}>
            Set up later
          </button>
        ) : (
          <button type="button" className="button-ghost" onClick={close}>
            Cancel
          </button>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="button button-primary button-large"
          data-testid="setup-start"
          disabled={busy || saving}
          onClick={() => void submit()}
        >
          {busy ? <LoaderCircle size={15} className="spin" aria-hidden="true" /> : null}
          {firstRun ? 'Start' : 'Save'}
        </button>
      </footer>
    </div>
  );
}

function StepTitle({ id, number, title }: { readonly id: string; readonly number: number; readonly title: string }) {
  return (
    <h2 id={id} className="setup-step-title">
      <span className="setup-step-number" aria-hidden="true">
        {number}
      </span>
      {title}
    </h2>
  );
}

/** The Test button and what the test found, in words. */
function TestRow({
  test,
  disabled,
  onTest,
  keyAdvice,
}: {
  readonly test: TestState;
  readonly disabled: boolean;
  readonly onTest: () => void;
  readonly keyAdvice: string;
}) {
  const running = test.status === 'running';
  return (
    <div className="test-row">
      <button type="button" className="button button-secondary" data-testid="setup-test" disabled={disabled || running} onClick={onTest}>
        {running ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : <Zap size={14} strokeWidth={2} aria-hidden="true" />}
        {running ? 'Testing…' : 'Test connection'}
      </button>
      <TestResult test={test} keyAdvice={keyAdvice} />
    </div>
  );
}

function TestResult({ test, keyAdvice }: { readonly test: TestState; readonly keyAdvice: string }) {
  switch (test.status) {
    case 'idle':
      return <span className="test-result test-result-idle">Sends a one-line message to check the key and the model.</span>;
    case 'running':
      return <span className="test-result test-result-idle">Asking the model to say “ready”…</span>;
    case 'failed':
      return (
        <span className="test-result" data-testid="test-result" data-ok="false" role="alert">
          <CircleAlert size={15} strokeWidth={2} className="test-result-bad" aria-hidden="true" />
          {test.message}
        </span>
      );
    case 'done': {
      const { result } = test;
      return result.ok ? (
        <span className="test-result" data-testid="test-result" data-ok="true" role="status">
          <CircleCheck size={15} strokeWidth={2} className="test-result-good" aria-hidden="true" />
          <span>
            Connected. <span className="test-result-model">{result.model}</span> answered
            {result.reply ? <> “{result.reply}”</> : null} in {formatDuration(result.latencyMs)}.
          </span>
        </span>
      ) : (
        <span className="test-result" data-testid="test-result" data-ok="false" role="alert">
          <CircleAlert size={15} strokeWidth={2} className="test-result-bad" aria-hidden="true" />
          <span>
            {result.error.message}
            {result.error.message.startsWith(MISSING_API_KEY_PREFIX) && ` ${keyAdvice}`}
          </span>
        </span>
      );
    }
    default: {
      const unknown: never = test;
      return unknown;
    }
  }
}
