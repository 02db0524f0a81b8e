/**
 * A `.gemini/settings.json` that an earlier step of the job wrote or changed (run-gemini-cli's
 * workflows write one from their `settings` input) is not the run's configuration: what steers a
 * run comes from the trusted commit (trusted-config.ts), never from the work tree. Ignoring it
 * silently would leave its author guessing, so it is named in a warning that says why and what to
 * do; like every leftover of an earlier step, it is never committed (publish/commits.ts).
 */
import type { Leftover } from './work-tree.js';

const SETTINGS = '.gemini/settings.json';

/** Pure: the warning for the work tree's leftovers, or undefined when no earlier step touched the settings file. */
export function uncommittedSettingsWarning(leftovers: readonly Leftover[]): string | undefined {
  const left = leftovers.find((l) => l.path === SETTINGS);
  if (!left) return undefined;
  const what = left.blob ? 'written or changed' : 'deleted';
  return `${SETTINGS} in the work tree was ${what} by an earlier step of the job, not committed: it is ignored. The settings that steer a run come from the trusted commit (a pull request's base, else the commit the run started on), never from the work tree, which the agent and a pull request can write. Pass the workflow's settings in the \`settings\` input instead. The file is not committed.`;
}
