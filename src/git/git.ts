/**
 * The one way agent-action runs git on a repository (sessions, snapshots, commits, pushes, trusted
 * configuration): bytes in, bytes out (patches and session documents are not always UTF-8), never a
 * prompt, and nothing in the repository able to make git run a program or send the token elsewhere.
 *
 * Before each command the repository's effective config is listed (`git config --list`, includes
 * followed), and every filter, diff and merge driver it names is neutralized in the command scope, on
 * top of src/git/env.ts's fixed list. What the command scope cannot override (git keeps the
 * first `remote.<name>.uploadpack`; `core.worktree` is read before any -c) is refused. A `.gitattributes` written by a model
 * can name a driver; only config can define one, and config is read here first.
 *
 * Network commands name their remote with GIT_REMOTE: it becomes a remote with a random name defined
 * only in the command scope (so `remote.<name>.pushurl`, `.receivepack` or a second `.url` in the
 * repository cannot apply), whose URL the action read before the model ran. The token goes to that
 * one process as an HTTP header in its environment: never in argv, never in `.git/config`, and a
 * header persisted by actions/checkout is cleared first.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AgentError } from '../common/errors.js';
import { createGitEnv, type ConfigPair } from './env.js';

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Where the action pushes and fetches; read once, before the model runs (src/action/action-remote.ts). */
export interface GitRemote {
  /** An http(s) URL or, in tests and on-premises mirrors, a local path. */
  url: string;
  /** Sent as `Authorization: basic` by the one git process that needs it. */
  token?: string;
}

export interface GitOptions {
  input?: Buffer | string;
  /** Identity and index variables the command needs (GIT_AUTHOR_*, GIT_INDEX_FILE). */
  env?: Record<string, string>;
  /** Required when args contain GIT_REMOTE. */
  remote?: GitRemote;
}

/** Placeholder for the remote in the args of push, fetch and ls-remote; see GitRemote. */
export const GIT_REMOTE = '<agent-action remote>';

/** The identity session commits are written with: they are machine records, not authored work. */
export const SESSION_IDENTITY = {
  GIT_AUTHOR_NAME: 'agent-action',
  GIT_AUTHOR_EMAIL: 'agent-action@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'agent-action',
  GIT_COMMITTER_EMAIL: 'agent-action@users.noreply.github.com',
};

/** Runs git hardened; resolves with the exit code (never rejects on a non-zero exit). */
export async function runGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<GitResult> {
  const usesRemote = args.includes(GIT_REMOTE);
  if (usesRemote && !opts.remote)
    throw new AgentError('internal', `git ${args[0]}: the command names a remote but none was given`);
  const listing = await spawnGit(cwd, ['config', '--list', '-z'], {
    env: createGitEnv({ base: process.env, ceiling: dirname(resolve(cwd)) }),
  });
  const entries = listing.code === 0 ? parseConfigListing(listing.stdout.toString('utf8')) : [];
  assertOwnWorkTree(cwd, entries);
  assertNoRemoteCommands(entries);
  const config = [...neutralizersFor(entries)];
  let finalArgs = args;
  if (usesRemote && opts.remote) {
    assertNotRewritten(opts.remote.url, entries);
    const name = `agent-action-${randomBytes(6).toString('hex')}`;
    config.push(...remoteConfig(opts.remote, name, process.env));
    finalArgs = args.map((a) => (a === GIT_REMOTE ? name : a));
  }
  return spawnGit(cwd, finalArgs, {
    env: createGitEnv({ base: process.env, ceiling: dirname(resolve(cwd)), config, extra: opts.env }),
    input: opts.input,
  });
}

/** Runs git and throws an AgentError naming the command when it fails; returns trimmed stdout. */
export async function assertGit(cwd: string, args: readonly string[], opts: GitOptions = {}): Promise<string> {
  const r = await runGit(cwd, args, opts);
  if (r.code !== 0) {
    throw new AgentError(
      'general',
      `git ${args.slice(0, 2).join(' ')} failed (exit ${r.code}): ${r.stderr.trim() || '(no output)'}`,
    );
  }
  return r.stdout.toString('utf8').trim();
}

function spawnGit(
  cwd: string,
  args: readonly string[],
  { env, input }: { env: Record<string, string>; input?: Buffer | string | undefined },
): Promise<GitResult> {
  return new Promise((resolveP, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolveP({ code: code ?? 1, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }),
    );
    // A git that exits before reading stdin must not crash us with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

interface ConfigEntry {
  /** `section.subsection.name`: section and name lower-case, the subsection as written. */
  key: string;
  /** Undefined for a bare `key` line (boolean true). */
  value: string | undefined;
}

/** Pure: `git config --list -z` output (`key\nvalue\0` per entry). */
function parseConfigListing(out: string): ConfigEntry[] {
  return out
    .split('\0')
    .filter((e) => e.length > 0)
    .map((e) => {
      const nl = e.indexOf('\n');
      return nl === -1 ? { key: e, value: undefined } : { key: e.slice(0, nl), value: e.slice(nl + 1) };
    });
}

/** `filter.a.b.clean` -> { section: 'filter', sub: 'a.b', name: 'clean' }; no subsection -> undefined. */
function splitKey(key: string): { section: string; sub: string; name: string } | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1 || first === last) return undefined;
  return {
    section: key.slice(0, first).toLowerCase(),
    sub: key.slice(first + 1, last),
    name: key.slice(last + 1).toLowerCase(),
  };
}

/** Per driver or remote name found in the config, the values that make it run nothing. */
const PER_NAME: Readonly<Record<string, readonly ConfigPair[]>> = {
  // An empty clean/smudge/process is no filter; not required, so a missing filter is no error.
  filter: [
    ['clean', ''],
    ['smudge', ''],
    ['process', ''],
    ['required', 'false'],
  ],
  // Empty: a textconv or external diff that would run fails instead (callers pass --no-textconv --no-ext-diff).
  diff: [
    ['textconv', ''],
    ['command', ''],
  ],
  // Empty: the merge fails as a conflict (a rebase of ours then stops and reports it).
  merge: [['driver', '']],
};

/** Pure: command-scope pairs that neutralize every driver and remote the listing defines. */
function neutralizersFor(entries: readonly ConfigEntry[]): ConfigPair[] {
  const seen = new Set<string>();
  const out: ConfigPair[] = [];
  for (const { key } of entries) {
    const k = splitKey(key);
    const fixes = k && PER_NAME[k.section];
    if (!k || !fixes || seen.has(`${k.section}\0${k.sub}`)) continue;
    seen.add(`${k.section}\0${k.sub}`);
    for (const [name, value] of fixes) out.push([`${k.section}.${k.sub}.${name}`, value]);
  }
  return out;
}

/** A repository whose config moves the work tree elsewhere (core.worktree) would commit that directory. */
function assertOwnWorkTree(cwd: string, entries: readonly ConfigEntry[]): void {
  const wt = entries.filter((e) => e.key.toLowerCase() === 'core.worktree').at(-1);
  if (!wt?.value) return;
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  if (real(resolve(cwd, '.git', wt.value)) !== real(cwd)) {
    throw new AgentError(
      'general',
      `the repository's git config sets core.worktree to ${JSON.stringify(wt.value)}: agent-action runs git only on the checked-out work tree (${cwd})`,
    );
  }
}

/**
 * `remote.<name>.uploadpack` and `.receivepack` are commands git runs on this machine (local
 * transports, and the lazy fetch of a partial clone's promisor remote), and git keeps the *first*
 * value it reads, so the command scope cannot override them: refuse instead.
 */
function assertNoRemoteCommands(entries: readonly ConfigEntry[]): void {
  for (const e of entries) {
    const k = splitKey(e.key);
    if (k?.section === 'remote' && (k.name === 'uploadpack' || k.name === 'receivepack')) {
      throw new AgentError(
        'general',
        `the repository's git config sets remote.${k.sub}.${k.name} (a command git runs): agent-action runs no git in a repository configured so`,
      );
    }
  }
}

/** `url.<base>.insteadOf` could send our push, and the token with it, to another host. */
function assertNotRewritten(url: string, entries: readonly ConfigEntry[]): void {
  for (const e of entries) {
    const k = splitKey(e.key);
    if (k?.section !== 'url' || (k.name !== 'insteadof' && k.name !== 'pushinsteadof') || !e.value) continue;
    if (url.startsWith(e.value) && `${k.sub}${url.slice(e.value.length)}` !== url) {
      throw new AgentError(
        'general',
        `the repository's git config rewrites ${url} (url.${k.sub}.${k.name} = ${e.value}): agent-action pushes and fetches only at the URL it read before the run`,
      );
    }
  }
}

/** The remote, defined in the command scope only, and its HTTP settings at the most specific URL. */
function remoteConfig(
  remote: GitRemote,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): ConfigPair[] {
  const pairs: ConfigPair[] = [[`remote.${name}.url`, remote.url]];
  if (!/^https?:\/\//i.test(remote.url)) return pairs;
  const at = `http.${remote.url}`;
  // An empty extraHeader clears the list: actions/checkout's persisted header, and any other.
  pairs.push([`${at}.extraHeader`, '']);
  if (remote.token)
    pairs.push([
      `${at}.extraHeader`,
      `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${remote.token}`).toString('base64')}`,
    ]);
  pairs.push(
    [`${at}.proxy`, proxyFor(remote.url, env)],
    [`${at}.sslVerify`, 'true'],
    [`${at}.curloptResolve`, ''],
    [`${at}.cookieFile`, ''],
    [`${at}.saveCookies`, 'false'],
  );
  return pairs;
}

/** The runner's proxy for this URL (its environment is trusted; the repository's config is not), or none. */
function proxyFor(url: string, env: Readonly<Record<string, string | undefined>>): string {
  const u = new URL(url);
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((s) => s.trim().replace(/^\*?\./, ''))
    .filter(Boolean);
  if (noProxy.some((h) => h === '*' || u.hostname === h || u.hostname.endsWith(`.${h}`))) return '';
  const https = u.protocol === 'https:';
  return (
    (https ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy)) ??
    env.ALL_PROXY ??
    env.all_proxy ??
    ''
  );
}
