/**
 * `/agent` with nothing after it, or `/agent help`: one reply in the thread listing the commands and
 * what each does. No model, no progress comment. The reply carries a marker, so the action never
 * reads its own help (which quotes the commands) as a command.
 */
import type { Thread } from './event-command.js';
import type { GitHubClient } from './github-client.js';
import { BUILT_IN_WORDS } from './custom-command.js';
import { formatMarker } from './markers.js';
import type { ActionResult, RepoRef } from './run-context.js';

/** A repository's custom command as help lists it. */
export interface HelpCommand {
  name: string;
  description: string;
}

/** The help text for a trigger word (`/agent` by default). */
function renderHelp(trigger: string, o: { fixLabel?: string; commands?: readonly HelpCommand[] } = {}): string {
  const t = (rest: string) => `\`${trigger}${rest ? ` ${rest}` : ''}\``;
  const lines = [
    '### agent-action commands',
    '',
    'Start a comment with one of these (only people with write access are heard):',
    '',
    `- ${t('fix [instructions]')}: make the change. On a pull request from this repository the commits go to its branch; on an issue they go to a new branch and a pull request.`,
    `- ${t('review [focus]')}: review the pull request and post the findings as a review with line comments.`,
    `- ${t('triage')}: label the issue from the repository's labels, and ask for what is missing.`,
    `- ${t('<question>')}: answer a question about this issue or pull request and the code; nothing is changed.`,
    `- ${t('approve')}, ${t('approve always')}, ${t('deny <reason>')}: answer a paused run that asked before running something (${t('approve 1 3')} / ${t('deny 2 <reason>')} answer call by call).`,
    `- ${t('answer <text>')}: answer the agent's own question to a paused run.`,
    `- ${t('continue')}: resume a run that was interrupted (a cancelled or crashed job).`,
    `- ${t('help')}: this list.`,
  ];
  if (o.fixLabel) lines.push('', `Labelling an issue \`${o.fixLabel}\` also starts ${t('fix')}.`);
  if (o.commands?.length) lines.push('', ...customCommandLines(trigger, o.commands));
  lines.push('', formatMarker('help'));
  return lines.join('\n');
}

/** The repository's custom commands (`.gemini/commands/`, extensions), one line each; a built-in word's is unreachable from a comment. */
function customCommandLines(trigger: string, commands: readonly HelpCommand[]): string[] {
  const lines = [
    "This repository's custom commands (`.gemini/commands/` and its extensions, from the default branch):",
    '',
  ];
  for (const c of commands) {
    const description = inert(c.description);
    lines.push(
      BUILT_IN_WORDS.has(c.name)
        ? `- \`/${c.name}\`: ${description} (only as the workflow's \`prompt: /${c.name}\`: in a comment \`${trigger} ${c.name}\` is the built-in; rename the file to call it from a comment)`
        : `- \`${trigger} ${c.name} [args]\`: ${description}`,
    );
  }
  return lines;
}

/** A description is the repository's text: no mention pings anyone, no backtick breaks the list. */
const inert = (s: string) => s.replace(/@(?=\w)/g, '@\u200b').replace(/`/g, "'");

/** Posts the help in the thread; the run ends `success`. */
export async function replyWithHelp(
  octokit: GitHubClient,
  repo: RepoRef,
  o: { thread: Thread; trigger: string; fixLabel?: string; commands?: readonly HelpCommand[] },
): Promise<ActionResult> {
  const { thread } = o;
  const { data } = await octokit.rest.issues.createComment({
    ...repo,
    issue_number: thread.number,
    body: renderHelp(o.trigger, o),
  });
  return { status: 'success', summary: `posted the list of commands: ${data.html_url}` };
}
