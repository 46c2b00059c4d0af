import { FileDiff, GitCommitHorizontal, Rows2, Columns2, Undo2, X } from 'lucide-react';
import { Fragment, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { ChangedFile } from '../../../../shared/protocol/methods/projects.js';
import { gitDiffHunks, gitDiffLines, languageOfPath, splitRows } from '../../format/changed-file-diff.js';
import type { DiffLine } from '../../format/file-diff.js';
import { highlightCode, highlightGeneration, loadLanguage, onLanguageLoaded } from '../../markdown/code-highlighter.js';
import { useProjectsStore, useThreadsStore } from '../../services/services.js';
import { FindingNote, findingsByLine, useLatestReview } from '../review/review-findings.js';
import { ReviewMenu } from '../review/review-menu.js';
import type { ReviewFinding } from '../../../../shared/protocol/review.js';
import './projects.css';

const STATUS_WORDS: Record<ChangedFile['status'], string> = {
  added: 'Added',
  deleted: 'Deleted',
  modified: 'Edited',
  renamed: 'Renamed',
  typeChanged: 'Changed type',
};

/**
 * What the thread changed: every file since the thread began (or since a chosen turn) with
 * its added and removed lines, one file's diff at a time (unified or side by side, coloured
 * by language), and undo for the turn or one file.
 */
export function ChangesPanel({ threadId }: { readonly threadId: string }) {
  const changes = useProjectsStore((s) => (s.changes?.threadId === threadId ? s.changes : null));
  const load = useProjectsStore((s) => s.loadChanges);
  const revert = useProjectsStore((s) => s.revert);
  const revertHunk = useProjectsStore((s) => s.revertHunk);
  const toggle = useProjectsStore((s) => s.toggleChanges);
  const [selected, setSelected] = useState<string | null>(null);
  const [layout, setLayout] = useState<'unified' | 'split'>('unified');
  const inRepository = useThreadsStore((s) => Boolean(s.threads[threadId]?.gitInfo));
  const review = useLatestReview(threadId);
  if (!changes) return null;
  const result = changes.result;
  const files = result?.files ?? [];
  const shown = files.find((file) => file.path === selected) ?? files[0] ?? null;
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  const checkpoints = result?.checkpoints ?? [];

  return (
    <aside className="changes-panel" aria-label="Changes" data-testid="changes-panel" aria-busy={changes.load === 'loading'}>
      <header className="changes-head">
        <h2 className="changes-title">
          <FileDiff size={14} strokeWidth={1.9} aria-hidden="true" />
          Changes
        </h2>
        <span className="changes-counts" data-testid="changes-counts">
          {files.length} {files.length === 1 ? 'file' : 'files'} <span className="file-diff-added">+{added}</span> <span className="file-diff-removed">−{removed}</span>
        </span>
        <button type="button" className="icon-button" aria-label="Close Changes" onClick={() => toggle(threadId)}>
          <X size={15} strokeWidth={2} aria-hidden="true" />
        </button>
      </header>
      <div className="changes-bar">
        <label className="changes-since">
          <span>Since</span>
          <select
            data-testid="changes-since"
            value={changes.sinceTurnId ?? ''}
            onChange={(e) => void load(threadId, e.target.value || null)}
          >
            <option value="">the thread began</option>
            {checkpoints.map((checkpoint, index) => (
              <option key={checkpoint.turnId} value={checkpoint.turnId}>
                {`turn ${index + 1} (${new Date(checkpoint.createdAt * 1000).toLocaleTimeString()})`}
              </option>
            ))}
          </select>
        </label>
        <div className="changes-layout" role="group" aria-label="Diff layout">
          <button type="button" className="icon-button" aria-label="Unified diff" aria-pressed={layout === 'unified'} onClick={() => setLayout('unified')}>
            <Rows2 size={14} strokeWidth={1.9} aria-hidden="true" />
          </button>
          <button type="button" className="icon-button" aria-label="Side-by-side diff" aria-pressed={layout === 'split'} data-testid="changes-split" onClick={() => setLayout('split')}>
            <Columns2 size={14} strokeWidth={1.9} aria-hidden="true" />
          </button>
        </div>
        <button
          type="button"
          className="button button-secondary"
          data-testid="changes-undo"
          disabled={files.length === 0 || checkpoints.length === 0}
          onClick={() => void revert(threadId, { turnId: changes.sinceTurnId })}
        >
          <Undo2 size={14} strokeWidth={1.9} aria-hidden="true" />
          {changes.sinceTurnId ? "Undo this turn's changes" : 'Undo all changes'}
        </button>
        {inRepository && <ReviewMenu threadId={threadId} hasChanges={files.length > 0} />}
      </div>
      {result?.unavailable ? (
        <p className="changes-empty">{result.unavailable}</p>
      ) : changes.load === 'failed' ? (
        <p className="changes-empty">The changes could not be read.</p>
      ) : files.length === 0 ? (
        <p className="changes-empty">{changes.load === 'loading' ? 'Reading changes…' : 'No files changed.'}</p>
      ) : (
        <>
          <ul className="changes-files" aria-label="Changed files">
            {files.map((file) => (
              <li key={file.path} className="changes-file" data-testid="changes-file" data-path={file.path} aria-current={file === shown ? 'true' : undefined}>
                <button type="button" className="changes-file-main" onClick={() => setSelected(file.path)}>
                  <span className="changes-file-status" data-status={file.status}>
                    {STATUS_WORDS[file.status]}
                  </span>
                  <code className="changes-file-path">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</code>
                  <span className="changes-file-counts">
                    <FindingCount findings={review?.findings ?? []} path={file.path} />
                    {file.binary ? 'binary' : <><span className="file-diff-added">+{file.added}</span> <span className="file-diff-removed">−{file.removed}</span></>}
                  </span>
                </button>
                <button
                  type="button"
                  className="icon-button"
                  aria-label={`Revert ${file.path}`}
                  title="Revert this file"
                  data-testid="changes-revert-file"
                  onClick={() => void revert(threadId, { turnId: changes.sinceTurnId, paths: [file.path] })}
                >
                  <Undo2 size={13} strokeWidth={1.9} aria-hidden="true" />
                </button>
              </li>
            ))}
          </ul>
          {shown && (
            <ChangedFileView
              file={shown}
              layout={layout}
              findings={review?.findings ?? []}
              onRevertHunk={(hunk) => void revertHunk(threadId, { turnId: changes.sinceTurnId, path: shown.path, hunk })}
            />
          )}
          {inRepository && <CommitForm threadId={threadId} />}
        </>
      )}
    </aside>
  );
}

/** Commit what is in the folder now, with a message; the author comes from git config and nothing is pushed. */
function CommitForm({ threadId }: { readonly threadId: string }) {
  const commit = useProjectsStore((s) => s.commit);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="changes-commit"
      onSubmit={(e) => {
        e.preventDefault();
        if (!message.trim()) return;
        setBusy(true);
        void commit(threadId, message.trim()).then((done) => {
          setBusy(false);
          if (done) setMessage('');
        });
      }}
    >
      <input
        type="text"
        aria-label="Commit message"
        placeholder="Commit message"
        data-testid="changes-commit-message"
        value={message}
        onChange={(e) => setMessage(e.target.value)}
      />
      <button type="submit" className="button button-secondary" data-testid="changes-commit" disabled={busy || !message.trim()}>
        <GitCommitHorizontal size={14} strokeWidth={1.9} aria-hidden="true" />
        Commit
      </button>
    </form>
  );
}

/** How many of the newest review's findings point into the file. */
function FindingCount({ findings, path }: { readonly findings: readonly ReviewFinding[]; readonly path: string }) {
  const count = findings.filter((finding) => finding.path === path).length;
  if (count === 0) return null;
  return (
    <span className="changes-file-findings" data-testid="changes-file-findings" title={`${count} review ${count === 1 ? 'finding' : 'findings'}`}>
      {count}
    </span>
  );
}

function ChangedFileView({
  file,
  layout,
  findings,
  onRevertHunk,
}: {
  readonly file: ChangedFile;
  readonly layout: 'unified' | 'split';
  readonly findings: readonly ReviewFinding[];
  readonly onRevertHunk: (hunk: string) => void;
}) {
  const lines = useMemo(() => gitDiffLines(file.path, file.diff), [file.path, file.diff]);
  const notes = useMemo(() => findingsByLine(findings, file.path), [findings, file.path]);
  // A finding on a line the diff does not show is listed above it, so none is lost.
  const shownLines = new Set(lines.map((line) => line.newNumber).filter((n): n is number => n !== null));
  const elsewhere = [...notes].filter(([line]) => !shownLines.has(line)).flatMap(([, list]) => list);
  const noteRow = (newNumber: number | null) =>
    newNumber !== null && notesAt(notes, newNumber).length > 0 ? (
      <div className="changes-finding-row" role="row" data-testid="changes-finding">
        <div role="cell">
          {notesAt(notes, newNumber).map((finding, index) => (
            <FindingNote key={index} finding={finding} />
          ))}
        </div>
      </div>
    ) : null;
  const hunks = useMemo(() => gitDiffHunks(file.diff), [file.diff]);
  // A renamed file's hunks belong to the rename: it is taken back whole (its revert button).
  const hunkRevert = file.status === 'modified';
  // The n-th hunk line of the view is the n-th hunk git printed.
  let hunkIndex = -1;
  const hunkButton = (line: DiffLine) => {
    if (line.kind !== 'hunk' || !hunkRevert) return null;
    const hunk = hunks[++hunkIndex];
    if (!hunk) return null;
    return (
      <span role="cell" className="changes-hunk-cell">
        <button type="button" className="changes-hunk-revert" data-testid="changes-revert-hunk" onClick={() => onRevertHunk(hunk)}>
          <Undo2 size={12} strokeWidth={1.9} aria-hidden="true" />
          Undo this part
        </button>
      </span>
    );
  };
  const language = languageOfPath(file.path);
  useHighlighter(language);
  if (file.binary) return <p className="changes-empty">A binary file: its content is not shown.</p>;
  if (file.large) return <p className="changes-empty">This file’s diff is too large to show here.</p>;
  if (lines.length === 0) return <p className="changes-empty">Only the file’s mode or name changed.</p>;
  return (
    <>
      {elsewhere.length > 0 && (
        <div className="changes-findings-elsewhere" data-testid="changes-findings-elsewhere">
          {elsewhere.map((finding, index) => (
            <FindingNote key={index} finding={finding} />
          ))}
        </div>
      )}
      <div className="changes-diff file-diff-body" role="table" aria-label={`Diff of ${file.path}`} data-testid="changes-diff" data-layout={layout}>
        {layout === 'unified'
          ? lines.map((line, index) => (
              <Fragment key={index}>
                <div className="file-diff-line" data-line={line.kind} role="row">
                  <span className="file-diff-number" aria-hidden="true">{line.oldNumber ?? ''}</span>
                  <span className="file-diff-number" aria-hidden="true">{line.newNumber ?? ''}</span>
                  <span className="file-diff-sign" aria-hidden="true">{sign(line)}</span>
                  <LineText line={line} language={language} />
                  {hunkButton(line)}
                </div>
                {line.kind !== 'removed' && noteRow(line.newNumber)}
              </Fragment>
            ))
          : splitRows(lines).map((row, index) => (
              <Fragment key={index}>
                <div className="changes-split-row" data-line={row.kind} role="row">
                  <SplitCell line={row.left} side="old" language={language} />
                  <SplitCell line={row.right} side="new" language={language} />
                  {row.left && hunkButton(row.left)}
                </div>
                {noteRow(row.right?.newNumber ?? null)}
              </Fragment>
            ))}
      </div>
    </>
  );
}

function SplitCell({ line, side, language }: { readonly line: DiffLine | null; readonly side: 'old' | 'new'; readonly language: string | null }) {
  if (!line) return <div className="changes-split-cell" data-line="empty" role="cell" />;
  return (
    <div className="changes-split-cell file-diff-line" data-line={line.kind} role="cell">
      <span className="file-diff-number" aria-hidden="true">{(side === 'old' ? line.oldNumber : line.newNumber) ?? ''}</span>
      <span className="file-diff-sign" aria-hidden="true">{sign(line)}</span>
      <LineText line={line} language={language} />
    </div>
  );
}

function LineText({ line, language }: { readonly line: DiffLine; readonly language: string | null }) {
  const label = line.kind === 'added' ? <span className="visually-hidden">added: </span> : line.kind === 'removed' ? <span className="visually-hidden">removed: </span> : null;
  const html = language && line.kind !== 'hunk' ? highlightCode(line.text, language) : '';
  return (
    <span className="file-diff-text hljs" role="cell">
      {label}
      {/* highlight.js escapes the text it colours. */}
      {html ? <span dangerouslySetInnerHTML={{ __html: html }} /> : line.text}
    </span>
  );
}

function sign(line: DiffLine): string {
  return line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : '';
}

/** Loads the file's grammar and renders again once it is there. */
function useHighlighter(language: string | null): void {
  useSyncExternalStore(onLanguageLoaded, highlightGeneration);
  useEffect(() => {
    if (language) void loadLanguage(language);
  }, [language]);
}

function notesAt(notes: ReadonlyMap<number, readonly ReviewFinding[]>, line: number): readonly ReviewFinding[] {
  return notes.get(line) ?? [];
}
