import type { CommandRunsIn } from '../../../../shared/protocol/methods/approvals.js';
import { InlineCode } from '../common/inline-code.js';

/** Folders as a person reads them: "a, b and c". */
function listOf(paths: readonly string[]): string {
  if (paths.length <= 1) return paths[0] ?? '';
  return `${paths.slice(0, -1).join(', ')} and ${paths[paths.length - 1]}`;
}

/** What the sandbox lets a command touch, in one plain sentence. */
function sandboxWords(runsIn: Exclude<CommandRunsIn, { type: 'noSandbox' }>): string {
  const writes = runsIn.writableRoots.length === 0 ? 'cannot change any file' : `can change files only in ${listOf(runsIn.writableRoots)}`;
  return `${writes}, and ${runsIn.networkAccess ? 'can' : 'cannot'} use the network`;
}

/**
 * Where an approved command will run, said plainly before the person answers:
 * in the sandbox, in it with exactly the folders the agent asked for, or
 * outside it (everything the person's account can touch).
 */
export function RunsInLine({ runsIn }: { readonly runsIn: CommandRunsIn | null | undefined }) {
  if (!runsIn) return null;
  if (runsIn.type === 'noSandbox') {
    return (
      <p className="approval-runs-in approval-runs-in-outside" data-testid="approval-runs-in" data-runs-in="noSandbox">
        <strong>Runs outside the sandbox</strong>: it can change any file and use the network, as you can.
      </p>
    );
  }
  if (runsIn.type === 'sandboxWithAdditions') {
    const added = [
      ...(runsIn.addedWritableRoots.length > 0 ? [`change files in ${listOf(runsIn.addedWritableRoots)}`] : []),
      ...(runsIn.addedReadableRoots.length > 0 ? [`read ${listOf(runsIn.addedReadableRoots)}`] : []),
      ...(runsIn.networkAccess ? ['use the network'] : []),
    ];
    return (
      <p className="approval-runs-in" data-testid="approval-runs-in" data-runs-in="sandboxWithAdditions">
        <strong>Runs in the sandbox, with more than usual</strong>: the agent asks to also <InlineCode text={added.join(' and ')} />. Otherwise it {sandboxWords(runsIn)}.
      </p>
    );
  }
  return (
    <p className="approval-runs-in" data-testid="approval-runs-in" data-runs-in="sandbox">
      <strong>Runs in the sandbox</strong>: it {sandboxWords(runsIn)}.
    </p>
  );
}
