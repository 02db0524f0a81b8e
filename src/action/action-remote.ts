/**
 * Where the action pushes and fetches (branches, session refs, base commits), decided once when the
 * action starts, before the model exists: `origin` as actions/checkout left it. Later, `.git/config`
 * may have been written by the model (where the sandbox does not hold); a remote URL read then could
 * send the work, and the token, anywhere.
 *
 * An ssh or git origin becomes the server's https URL: the action authenticates with its token, over
 * https only (ssh would run `core.sshCommand` and need keys the action does not hold).
 */
import { runGit, type GitRemote } from '../git/git.js';

export interface ActionRemoteOptions {
  workspace: string;
  /** The github-token input: sent by the git processes that push or fetch, as an HTTP header. */
  token: string;
  /** GITHUB_SERVER_URL, for an origin that is not http(s) or a local path. */
  serverUrl: string;
  repository: { owner: string; repo: string };
}

export async function readActionRemote(o: ActionRemoteOptions): Promise<GitRemote> {
  const r = await runGit(o.workspace, ['remote', 'get-url', 'origin']);
  const origin = r.code === 0 ? r.stdout.toString('utf8').trim() : '';
  return { url: parseRemoteUrl(origin, o), token: o.token };
}

/** Pure: origin's URL without credentials, a local path as it is, anything else the server's https URL. */
export function parseRemoteUrl(origin: string, o: Pick<ActionRemoteOptions, 'serverUrl' | 'repository'>): string {
  if (/^https?:\/\//i.test(origin)) {
    const u = new URL(origin);
    u.username = '';
    u.password = '';
    return u.toString();
  }
  if (origin.startsWith('/') || /^file:\/\//i.test(origin)) return origin;
  return `${o.serverUrl.replace(/\/+$/, '')}/${o.repository.owner}/${o.repository.repo}`;
}
