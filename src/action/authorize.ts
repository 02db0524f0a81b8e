/**
 * Who may start a run, and who may answer an approval request: one rule for both. Comment commands
 * need write, maintain or admin permission, asked of the collaborator-permission API
 * (author_association is not enough: it says nothing of the current role). Bots only when
 * allow-listed, and never to answer a request; the action's own comments never. A refusal is a
 * value, not an error: the run logs it and ends green as `skipped` (a person whose answer was
 * refused is told so in the thread: approval/resume.ts tellRefusedReplier).
 */
import { AgentError, messageOf } from '../common/errors.js';
import type { Trigger } from './event-command.js';
import type { GitHubClient } from './github-client.js';
import type { RepoRef } from './run-context.js';

export type Authorization = { allowed: true; permission: string } | { allowed: false; reason: string };

export interface AuthorizeOptions {
  allowedBots: readonly string[];
  /** Logins the action itself posts as (github-actions[bot] for the workflow token). */
  selfLogins: readonly string[];
  trigger: Trigger;
  /**
   * The comment answers an approval request (`/agent approve|deny|answer|continue`): no bot may,
   * allow-listed or not. An approval is a person's decision, and two bots must not talk to each other.
   */
  answersApproval?: boolean;
}

/** The roles that may start runs and answer approvals. */
const WRITE_ROLES: ReadonlySet<string> = new Set(['admin', 'maintain', 'write']);

/** The account the workflow token posts as: the action's own comments are by it. */
export const SELF_LOGINS: readonly string[] = ['github-actions[bot]'];

/** Who the action's own comments are by, lower-cased: the workflow token's account and the one this run's token posts as. */
export type OwnLogins = ReadonlySet<string>;

/**
 * The one answer to "did the action write this?" (a question comment, a triaged marker, the session
 * ledger): the author's login as the API reports it, never the text. Anyone can type or quote a
 * marker; a person, or any other bot, is never the action.
 */
export function isOurs(author: { login?: string | null } | null | undefined, own: OwnLogins): boolean {
  const login = author?.login?.toLowerCase();
  return login !== undefined && own.has(login);
}

/** The account a run's token posts as, asked of the API once, and only when a decision needs it. */
export interface OwnAccount {
  /** The author the API gave something this run wrote (its progress comment): nothing to ask then. */
  learn(login: string | null | undefined): void;
  logins(): Promise<OwnLogins>;
}

/**
 * A GitHub App's installation token posts as `<slug>[bot]`, a personal access token as its user,
 * the workflow token as github-actions[bot]. GraphQL's `viewer` names each (REST's `GET /user` refuses
 * installation tokens); where it cannot answer, only the workflow token's account is the action's.
 */
export function createOwnAccount(octokit: GitHubClient, log: (line: string) => void = () => {}): OwnAccount {
  let learned: string | undefined;
  let asked: Promise<OwnLogins> | undefined;
  const withSelf = (login: string | undefined): OwnLogins =>
    new Set([...SELF_LOGINS, ...(login ? [login] : [])].map((l) => l.toLowerCase()));
  return {
    learn(login) {
      if (login) learned ??= login;
    },
    logins() {
      if (learned) return Promise.resolve(withSelf(learned));
      asked ??= octokit
        .graphql<{ viewer: { login: string } }>('query { viewer { login } }')
        .then((r) => withSelf(r.viewer.login))
        .catch((e: unknown) => {
          log(
            `could not ask who this token posts as (${messageOf(e)}); only ${SELF_LOGINS.join(', ')} counts as agent-action's own account`,
          );
          return withSelf(undefined);
        });
      return asked;
    },
  };
}

export async function authorize(octokit: GitHubClient, repo: RepoRef, opts: AuthorizeOptions): Promise<Authorization> {
  const { trigger } = opts;
  // A schedule, or a mode its author wrote into the workflow: whoever may change the workflow decided.
  if (trigger.fromWorkflow) return { allowed: true, permission: 'the workflow' };
  const login = trigger.requester.login;
  if (opts.selfLogins.some((s) => s.toLowerCase() === login.toLowerCase())) {
    return { allowed: false, reason: `${login} is agent-action's own account` };
  }
  if (trigger.requester.isBot && opts.answersApproval)
    return { allowed: false, reason: `${login} is a bot; bots cannot answer approval requests` };
  if (trigger.requester.isBot && !opts.allowedBots.includes(login.toLowerCase())) {
    return { allowed: false, reason: `${login} is a bot and not listed in allowed-bots` };
  }
  if (!trigger.needsWrite && !opts.answersApproval) return { allowed: true, permission: 'none needed' };
  const role = await readRole(octokit, repo, login);
  if (role === undefined)
    return { allowed: false, reason: `${login} is not a collaborator of ${repo.owner}/${repo.repo}` };
  if (!WRITE_ROLES.has(role))
    return { allowed: false, reason: `${login} has '${role}' permission; write, maintain or admin is needed` };
  return { allowed: true, permission: role };
}

/**
 * The user's role: `role_name` distinguishes maintain from write (`permission` folds it into write).
 * Undefined when the user is not a collaborator (404); other failures throw after the client's retries.
 */
async function readRole(octokit: GitHubClient, repo: RepoRef, username: string): Promise<string | undefined> {
  try {
    const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username });
    return (data as { role_name?: string }).role_name || data.permission;
  } catch (e) {
    if ((e as { status?: number }).status === 404) return undefined;
    throw new AgentError('general', `could not read ${username}'s permission: ${messageOf(e)}`, { cause: e });
  }
}
