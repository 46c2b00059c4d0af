import { Folder, FolderOpen, SquarePen } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useProjectsStore, useThreadsStore } from '../../services/services.js';
import { FolderBrowser } from '../setup/folder-browser.js';
import { ModalDialog } from '../common/modal-dialog.js';
import { SeparateCopyChoice } from './separate-copy-choice.js';
import '../setup/setup.css';
import './projects.css';


/**
 * "New thread": which project (recent ones first, or any folder), and whether the agent
 * works in a separate copy (a git worktree on its own branch). Enter starts it.
 */
export function NewThreadDialog() {
  const picker = useProjectsStore((s) => s.picker);
  if (!picker) return null;
  return <NewThreadForm initial={picker.folder} />;
}

function NewThreadForm({ initial }: { readonly initial: string | null }) {
  const projects = useProjectsStore((s) => s.projects);
  const details = useProjectsStore((s) => s.details);
  const readDetails = useProjectsStore((s) => s.readDetails);
  const close = useProjectsStore((s) => s.closePicker);
  const newThread = useThreadsStore((s) => s.newThread);
  const creating = useThreadsStore((s) => s.creating);
  const [folder, setFolder] = useState<string | null>(initial);
  const [worktree, setWorktree] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const start = useRef<HTMLButtonElement>(null);
  const titleId = useId();

  useEffect(() => {
    if (folder && !details[folder]) void readDetails(folder);
  }, [folder, details, readDetails]);
  useEffect(() => {
    if (!browsing) start.current?.focus();
  }, [browsing]);

  const choices = folder && !projects.some((p) => p.path === folder) ? [{ path: folder, name: baseName(folder) }, ...projects] : projects;
  const repository = folder ? details[folder]?.repository : undefined;
  const isGit = Boolean(repository);

  const submit = async () => {
    // With no project yet (a first thread), it starts in the folder Settings names for new threads.
    if (!folder && projects.length > 0) return;
    if (await newThread(folder ?? undefined, { worktree: worktree && isGit })) close();
  };

  if (browsing) {
    return (
      <FolderBrowser
        start={folder}
        onClose={() => setBrowsing(false)}
        onChoose={(path) => {
          setFolder(path);
          setBrowsing(false);
        }}
      />
    );
  }

  return (
    <ModalDialog className="new-thread-dialog" testId="new-thread-dialog" titleId={titleId} onClose={close}>
      <h2 id={titleId} className="dialog-title">
        New thread
      </h2>
      <fieldset className="project-choices">
        <legend className="project-choices-legend">Project</legend>
        {choices.length === 0 && <p className="dialog-text">No projects yet: choose a folder to work in.</p>}
        {choices.map((project) => (
          <label key={project.path} className="project-choice" data-testid="project-choice" data-path={project.path}>
            <input type="radio" name="project" checked={folder === project.path} onChange={() => setFolder(project.path)} />
            <Folder size={14} strokeWidth={1.9} aria-hidden="true" />
            <span className="project-choice-name">{project.name}</span>
            <span className="project-choice-path">{project.path}</span>
          </label>
        ))}
        <button type="button" className="button button-secondary project-browse" data-testid="choose-folder" onClick={() => setBrowsing(true)}>
          <FolderOpen size={14} strokeWidth={1.9} aria-hidden="true" />
          Choose a folder…
        </button>
      </fieldset>
      <SeparateCopyChoice repository={repository} checked={worktree} onChange={setWorktree} testId="new-thread-worktree" />
      <div className="dialog-actions">
        <button type="button" className="button button-secondary" onClick={close}>
          Cancel
        </button>
        <button
          ref={start}
          type="button"
          className="button button-primary"
          data-testid="new-thread-start"
          disabled={(!folder && projects.length > 0) || creating}
          onClick={() => void submit()}
        >
          <SquarePen size={14} strokeWidth={2} aria-hidden="true" />
          Start thread
        </button>
      </div>
    </ModalDialog>
  );
}

function baseName(folder: string): string {
  return folder.split('/').filter(Boolean).pop() ?? folder;
}
