import { Check, CircleAlert, LoaderCircle, ShipWheel, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import type { ConfigReadResult } from '../../../../shared/protocol/methods/config.js';
import { useSetupStore, useThreadsStore } from '../../services/services.js';
import { useConfirmStore } from '../../stores/confirm-store.js';
import { formFromConfig, formProblems, isFormSaved, type ProviderForm } from '../../stores/setup-plan.js';
import { CodeWhaleImportPanel, CodeWhaleImportToggle } from './codewhale-import.js';
import { useFocusTrap } from '../common/use-focus-trap.js';
import { FolderField } from './folder-field.js';
import { McpServerList } from '../connections/mcp-server-list.js';
import { ProviderSection } from './provider-section.js';
import { TestRow } from './provider-test.js';
import { RulesSection } from '../rules/rules-section.js';
import { MachinesSection } from '../machines/machines-section.js';
import { NotificationsSection } from '../notifications/notifications-section.js';
import { StorageSection } from '../storage/storage-section.js';
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

/**
 * First run is a wizard: everything is written by Start. Settings saves each
 * section by itself and says so: the provider with its own Save, the folder
 * once it is checked, MCP servers and rules as they change; Done only closes
 * (asking first when the provider has unsaved edits).
 */
function SetupCard({ config, firstRun }: { readonly config: ConfigReadResult; readonly firstRun: boolean }) {
  const test = useSetupStore((s) => s.test);
  const saving = useSetupStore((s) => s.saving);
  const focus = useSetupStore((s) => s.focus);
  const testProvider = useSetupStore((s) => s.testProvider);
  const resetTest = useSetupStore((s) => s.resetTest);
  const saveProvider = useSetupStore((s) => s.saveProvider);
  const listFolder = useSetupStore((s) => s.listFolder);
  const close = useSetupStore((s) => s.close);
  const defer = useSetupStore((s) => s.defer);
  const finish = useSetupStore((s) => s.finish);
  const ask = useConfirmStore((s) => s.ask);
  const newThread = useThreadsStore((s) => s.newThread);
  const projectFolder = useThreadsStore((s) => s.projectFolder);
  const setProjectFolder = useThreadsStore((s) => s.setProjectFolder);

  const [form, setForm] = useState<ProviderForm>(() => formFromConfig(config));
  const [folder, setFolder] = useState(projectFolder ?? '');
  const [folderError, setFolderError] = useState<string | null>(null);
  const [folderSaved, setFolderSaved] = useState(false);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [showProblems, setShowProblems] = useState(false);
  const [busy, setBusy] = useState(false);
  const [providerSaves, setProviderSaves] = useState(0);
  const [editKeyRequest, setEditKeyRequest] = useState(0);
  const [importing, setImporting] = useState(false);
  const titleId = useId();
  const card = useRef<HTMLDivElement>(null);
  const modelInput = useRef<HTMLInputElement>(null);
  useFocusTrap(card);
  const problems = formProblems(form);
  const providerSaved = isFormSaved(form, config);

  // Focus starts in the first field, or the one an error's action asked for, so the keyboard (and Escape) work at once.
  useEffect(() => {
    if (focus === 'apiKey') setEditKeyRequest(1);
    else if (focus === 'model') modelInput.current?.focus();
    else card.current?.querySelector<HTMLElement>('.setup-body input, .setup-body select, .setup-body textarea')?.focus();
  }, [focus]);
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

  /** Settings: a checked folder is saved at once. */
  const commitFolder = async (path: string) => {
    const checked = await checkFolder(path);
    if (firstRun || checked === null) return;
    if (checked !== projectFolder) setProjectFolder(checked);
    setFolder(checked);
    setFolderSaved(true);
  };

  const runTest = () => {
    setShowProblems(true);
    if (Object.keys(problems).length === 0) void testProvider(form);
  };

  /** Writes the provider (and a typed key); true when it was saved. */
  const writeProvider = async (): Promise<boolean> => {
    setShowProblems(true);
    if (Object.keys(problems).length > 0) return false;
    const problem = await saveProvider(form);
    if (problem !== null) {
      setSubmitError(problem);
      return false;
    }
    return true;
  };

  const saveSettingsProvider = async () => {
    if (!(await writeProvider())) return;
    const saved = useSetupStore.getState().config;
    if (saved) setForm(formFromConfig(saved));
    setProviderSaves((count) => count + 1);
  };

  const start = async () => {
    setShowProblems(true);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const path = await checkFolder(folder);
      if (path === null || !(await writeProvider())) return;
      await newThread(path);
      finish();
    } finally {
      setBusy(false);
    }
  };

  const done = async () => {
    if (!providerSaved) {
      const discard = await ask({
        title: 'Leave without saving the provider?',
        message: 'The model provider has changes that are not saved. They will be lost.',
        confirmLabel: 'Discard changes',
        danger: true,
      });
      if (!discard) return;
    }
    close();
  };

  return (
    <div
      ref={card}
      className="setup-card"
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      onKeyDown={(event) => {
        // Settings' Escape goes through Done, so unsaved provider edits are never dropped silently.
        if (event.key === 'Escape' && !firstRun && !event.defaultPrevented) {
          event.preventDefault();
          void done();
        }
      }}
    >
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
              : 'Changes are saved as you make them; the model provider has its own Save button.'}
          </p>
        </div>
        {!firstRun && (
          <button type="button" className="icon-button setup-close" aria-label="Close settings" data-testid="setup-close" onClick={() => void done()}>
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
          <ProviderSection
            key={providerSaves}
            form={form}
            config={config}
            problems={visibleProblems}
            editKeyRequest={editKeyRequest}
            modelInput={modelInput}
            onChange={change}
          />
          <TestRow
            test={test}
            disabled={saving || busy}
            actions={{ retest: runTest, editKey: () => setEditKeyRequest((n) => n + 1), chooseModel: () => modelInput.current?.focus() }}
            save={
              firstRun ? undefined : (
                <SaveState saved={providerSaved} saving={saving} everSaved={providerSaves > 0} onSave={() => void saveSettingsProvider()} />
              )
            }
          />
          {submitError && (
            <p className="field-error" role="alert" data-testid="setup-error">
              {submitError}
            </p>
          )}
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
              setFolderSaved(false);
            }}
            onCommit={(path) => void commitFolder(path)}
          />
          {folderSaved && (
            <p className="saved-note" role="status" data-testid="folder-saved">
              <Check size={13} strokeWidth={2.4} aria-hidden="true" /> Saved. New threads start in this folder.
            </p>
          )}
        </section>

        {!firstRun && (
          <section className="setup-step" aria-labelledby="step-connections" data-testid="settings-connections">
            <StepTitle id="step-connections" number={3} title="Connections (MCP servers)" />
            <p className="setup-step-text">The same servers as the Connections page. Adding, switching or removing one saves it at once.</p>
            <McpServerList />
          </section>
        )}
        {!firstRun && <RulesSection headingId="step-rules" number={4} />}
        {!firstRun && <MachinesSection number={5} />}
        {!firstRun && <NotificationsSection number={6} />}
        {!firstRun && <StorageSection number={7} />}
        {!firstRun && <DesktopAppSection number={8} />}
      </div>

      <footer className="setup-foot">
        {firstRun ? (
          <>
            <button type="button" className="button-ghost" data-testid="setup-later" onClick={defer}>
              Set up later
            </button>
            <span className="spacer" />
            <button type="button" className="button button-primary button-large" data-testid="setup-start" disabled={busy || saving} onClick={() => void start()}>
              {busy ? <LoaderCircle size={15} className="spin" aria-hidden="true" /> : null}
              Start
            </button>
          </>
        ) : (
          <>
            <span className="spacer" />
            <button type="button" className="button button-primary" data-testid="setup-done" onClick={() => void done()}>
              Done
            </button>
          </>
        )}
      </footer>
    </div>
  );
}

/** The provider section's own Save in Settings, and whether what is shown is saved. */
function SaveState({
  saved,
  saving,
  everSaved,
  onSave,
}: {
  readonly saved: boolean;
  readonly saving: boolean;
  readonly everSaved: boolean;
  readonly onSave: () => void;
}) {
  return (
    <span className="provider-save">
      <span className="saved-note" role="status" data-testid="provider-save-state" data-saved={saved}>
        {saved ? (
          everSaved ? (
            <>
              <Check size={13} strokeWidth={2.4} aria-hidden="true" /> Saved
            </>
          ) : null
        ) : (
          'Not saved yet'
        )}
      </span>
      <button
        type="button"
        className={saved ? 'button button-secondary' : 'button button-primary'}
        data-testid="provider-save"
        disabled={saved || saving}
        onClick={onSave}
      >
        {saving ? <LoaderCircle size={14} className="spin" aria-hidden="true" /> : null}
        Save provider
      </button>
    </span>
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
