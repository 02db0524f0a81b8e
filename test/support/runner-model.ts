/**
 * The runner model: what GitHub and `actions/checkout` give a job, per event. Every end-to-end test
 * takes its workspace from here; none prepares a checkout by hand.
 *
 * Sources (restated in ../shared/reference/runner-events.md):
 * - GitHub Docs, "Events that trigger workflows"
 *   (https://docs.github.com/en/actions/writing-workflows/choosing-when-your-workflow-runs/events-that-trigger-workflows):
 *   the GITHUB_REF and GITHUB_SHA of each event. issue_comment, issues and schedule run on the
 *   default branch's last commit, a comment on a pull request included; pull_request,
 *   pull_request_review and pull_request_review_comment on `refs/pull/N/merge`, GitHub's
 *   test-merge commit of the head into the base; pull_request_target on the base branch;
 *   workflow_dispatch on the ref chosen. A pull request that does not merge cleanly has no merge
 *   ref, and pull_request workflows do not run for it. A `pull_request` run from a fork gets no
 *   repository secrets and a read-only GITHUB_TOKEN.
 * - actions/checkout (README, src/ref-helper.ts, src/git-source-provider.ts): `git init`, `origin`
 *   added, the token persisted as `http.https://github.com/.extraheader` (`AUTHORIZATION: basic
 *   base64(x-access-token:TOKEN)`) unless `persist-credentials: false`, then one fetch: with the
 *   default `fetch-depth: 1`, `--no-tags --prune --depth=1` of the event's commit only, into
 *   `refs/remotes/origin/<branch>` (a branch: checked out with `-B <branch>`) or
 *   `refs/remotes/pull/N/merge` (checked out detached); with `fetch-depth: 0`, every branch and tag
 *   too. So no other branch, and never `refs/pull/N/head`, unless the workflow asks for it.
 *
 * The remote is a bare repository on disk standing in for github.com/<owner>/<repo>: its branches,
 * and for each pull request the refs GitHub keeps, `refs/pull/N/head` (also for a fork's pull
 * request, whose commits live in the fork) and `refs/pull/N/merge`. Like GitHub, it serves a fetch
 * of any commit by id, and keeps `refs/pull/*` out of pushes: they are read-only to users, neither
 * advertised to nor accepted from a push (github/spokes-receive-pack#39, "Fix for hidden refs"; a
 * push gets "deny updating a hidden ref").
 */
import { execFileSync } from 'node:child_process';
import { GIT_IDENTITY, git, makeTempDir, writeFiles } from './git-repo.js';

type Files = Record<string, string | Buffer>;

export interface PullSpec {
  number: number;
  /** The head branch's name (in the fork, for a fork's pull request). */
  head: string;
  /** The base branch; default the default branch. */
  base?: string;
  /** The head's changes on top of the base (a `Buffer` for binary content; `null` deletes). */
  files: Record<string, string | Buffer | null>;
  /** owner/name of the fork the head lives in; absent for a same-repository pull request. */
  fork?: string;
}

export interface RemoteSpec {
  /** owner/name; default octo/hello (the fake GitHub's default repository). */
  repository?: string;
  defaultBranch?: string;
  /** The default branch's files (one commit). */
  files: Files;
  /** Other branches of the repository: name -> changes on top of the default branch. */
  branches?: Record<string, Record<string, string | Buffer | null>>;
  pulls?: PullSpec[];
}

interface PullState {
  number: number;
  headRef: string;
  headSha: string;
  /** owner/name of the repository the head branch lives in. */
  headRepository: string;
  isFork: boolean;
  baseRef: string;
  baseSha: string;
  /** The test-merge commit (`refs/pull/N/merge`); undefined when head and base conflict. */
  mergeSha?: string;
}

export interface Remote {
  repository: string;
  defaultBranch: string;
  /** The bare repository (where pushes land): github.com/<repository>. */
  dir: string;
  /** Bare repositories of forks, by owner/name. */
  forks: Record<string, string>;
  /** Branch name -> last commit, in the base repository. */
  branches(): Record<string, string>;
  pull(number: number): PullState;
  /**
   * A new commit on `branch` (of the fork, for a fork's pull request head), as a push to GitHub
   * makes: GitHub moves `refs/pull/N/head` of every open pull request from it and remakes the merge
   * ref. Returns the new commit.
   */
  push(branch: string, files: Record<string, string | Buffer | null>, o?: { fork?: string; message?: string }): string;
}

/** A bare repository that serves any commit by id (as GitHub does: checkout fetches by SHA) and hides refs/pull/* from pushes. */
function initBare(prefix: string, defaultBranch: string): string {
  const dir = makeTempDir(prefix);
  git(dir, 'init', '-q', '--bare', '-b', defaultBranch);
  git(dir, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
  git(dir, 'config', 'receive.hideRefs', 'refs/pull');
  return dir;
}

function applyFiles(dir: string, files: Record<string, string | Buffer | null>): void {
  const kept: Files = {};
  for (const [path, content] of Object.entries(files)) {
    if (content === null) git(dir, 'rm', '-q', '--', path);
    else kept[path] = content;
  }
  writeFiles(dir, kept);
}

/** Builds the repository on GitHub a job's checkout fetches from. */
export function createRemote(spec: RemoteSpec): Remote {
  const repository = spec.repository ?? 'octo/hello';
  const defaultBranch = spec.defaultBranch ?? 'main';
  const dir = initBare('agent-action-origin-', defaultBranch);
  const forks: Record<string, string> = {};
  const pulls = new Map<number, PullState>();
  // One working clone builds every commit (a test identity: GitHub's commits have an author).
  const seed = makeTempDir('agent-action-seed-');
  git(seed, 'init', '-q', '-b', defaultBranch);
  git(seed, 'remote', 'add', 'origin', dir);
  writeFiles(seed, spec.files);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'initial');
  git(seed, 'push', '-q', 'origin', `HEAD:refs/heads/${defaultBranch}`);

  const commitOn = (start: string, files: Record<string, string | Buffer | null>, message: string): string => {
    git(seed, 'checkout', '-q', '--detach', start);
    applyFiles(seed, files);
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '--allow-empty', '-m', message);
    return git(seed, 'rev-parse', 'HEAD');
  };
  const refOf = (repo: string, ref: string) => git(repo, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  const remakePullRefs = (p: PullState) => {
    p.baseSha = refOf(dir, `refs/heads/${p.baseRef}`);
    git(seed, 'fetch', '-q', p.isFork ? forks[p.headRepository] : dir, p.headSha);
    git(dir, 'fetch', '-q', seed, `+${p.headSha}:refs/pull/${p.number}/head`);
    git(seed, 'checkout', '-q', '--detach', p.baseSha);
    const merged = execMerge(seed, p.headSha, `Merge ${p.headSha} into ${p.baseSha}`);
    if (merged) {
      p.mergeSha = merged;
      git(dir, 'fetch', '-q', seed, `+${merged}:refs/pull/${p.number}/merge`);
    } else {
      p.mergeSha = undefined;
      execFileSync('git', ['--git-dir', dir, 'update-ref', '-d', `refs/pull/${p.number}/merge`]);
    }
  };

  for (const [branch, files] of Object.entries(spec.branches ?? {})) {
    commitOn(defaultBranch, files, `work on ${branch}`);
    git(seed, 'push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  }
  for (const p of spec.pulls ?? []) {
    const baseRef = p.base ?? defaultBranch;
    const baseSha = refOf(dir, `refs/heads/${baseRef}`);
    const headSha = commitOn(baseSha, p.files, `work on ${p.head}`);
    const headRepository = p.fork ?? repository;
    if (p.fork) {
      forks[p.fork] ??= initBare('agent-action-fork-', defaultBranch);
      git(forks[p.fork], 'fetch', '-q', dir, `+refs/heads/*:refs/heads/*`);
      git(seed, 'push', '-q', forks[p.fork], `HEAD:refs/heads/${p.head}`);
    } else {
      git(seed, 'push', '-q', 'origin', `HEAD:refs/heads/${p.head}`);
    }
    const state: PullState = {
      number: p.number,
      headRef: p.head,
      headSha,
      headRepository,
      isFork: Boolean(p.fork),
      baseRef,
      baseSha,
    };
    remakePullRefs(state);
    pulls.set(p.number, state);
  }

  return {
    repository,
    defaultBranch,
    dir,
    forks,
    branches: () => {
      const out: Record<string, string> = {};
      const listing = git(dir, 'for-each-ref', '--format=%(refname:strip=2) %(objectname)', 'refs/heads');
      for (const line of listing.split('\n').filter(Boolean)) {
        const [name, sha] = line.split(' ');
        out[name] = sha;
      }
      return out;
    },
    pull: (number) => {
      const p = pulls.get(number);
      if (!p) throw new Error(`runner model: no pull request #${number}`);
      return { ...p };
    },
    push: (branch, files, o = {}) => {
      const repo = o.fork ? forks[o.fork] : dir;
      if (!repo) throw new Error(`runner model: no fork ${o.fork}`);
      git(seed, 'fetch', '-q', repo, `refs/heads/${branch}`);
      const sha = commitOn('FETCH_HEAD', files, o.message ?? `more work on ${branch}`);
      git(seed, 'push', '-q', repo, `HEAD:refs/heads/${branch}`);
      const from = o.fork ?? repository;
      for (const p of pulls.values()) {
        if (p.headRef === branch && p.headRepository === from) {
          p.headSha = sha;
          remakePullRefs(p);
        } else if (!o.fork && p.baseRef === branch) remakePullRefs(p);
      }
      return sha;
    },
  };
}

/** `git merge` as GitHub's test merge: the merge commit, or undefined (and the merge undone) on a conflict. */
function execMerge(dir: string, head: string, message: string): string | undefined {
  try {
    execFileSync('git', ['merge', '-q', '--no-ff', '--no-edit', '-m', message, head], {
      cwd: dir,
      env: { ...process.env, ...GIT_IDENTITY, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: 'ignore',
    });
    return git(dir, 'rev-parse', 'HEAD');
  } catch {
    execFileSync('git', ['merge', '--abort'], { cwd: dir, stdio: 'ignore' });
    return undefined;
  }
}

// ---- events --------------------------------------------------------------------------------

/** Events whose job runs on the pull request's test-merge commit. */
const MERGE_REF_EVENTS = new Set(['pull_request', 'pull_request_review', 'pull_request_review_comment']);
/**
 * Events whose job runs on the default branch's last commit, whatever thread they come from (the
 * documentation's table: GITHUB_SHA "Last commit on default branch", GITHUB_REF "Default branch").
 * Events it places elsewhere by their payload (push, create, release, deployment, deployment_status,
 * registry_package, merge_group, workflow_call) have no facts here: jobRefsFor refuses them.
 */
const DEFAULT_BRANCH_EVENTS = new Set([
  'branch_protection_rule',
  'check_run',
  'check_suite',
  'delete',
  'discussion',
  'discussion_comment',
  'fork',
  'gollum',
  'image_version',
  'issue_comment',
  'issues',
  'label',
  'milestone',
  'page_build',
  'project',
  'project_card',
  'project_column',
  'public',
  'repository_dispatch',
  'schedule',
  'status',
  'watch',
  'workflow_run',
]);

/** True when jobRefsFor has facts for the event (the table above, the pull request events, workflow_dispatch). */
export const hasJobFacts = (name: string): boolean =>
  MERGE_REF_EVENTS.has(name) ||
  DEFAULT_BRANCH_EVENTS.has(name) ||
  name === 'pull_request_target' ||
  name === 'workflow_dispatch';

export interface JobEvent {
  name: string;
  /** The pull request the event is about (for pull_request*, and a comment on a pull request). */
  pull?: number;
  /** workflow_dispatch: the ref chosen in the form or the API call; default the default branch. */
  dispatchRef?: string;
}

/**
 * The event as the runner reads it from its payload: the pull request is `pull_request.number` for
 * the pull_request* events, and `issue.number` for a comment on a pull request (whose `issue` has a
 * `pull_request` member).
 */
export function jobEventOf(name: string, payload: unknown): JobEvent {
  const p = (payload ?? {}) as {
    pull_request?: { number?: unknown };
    issue?: { number?: unknown; pull_request?: unknown };
  };
  const pull =
    typeof p.pull_request?.number === 'number'
      ? p.pull_request.number
      : p.issue?.pull_request && typeof p.issue.number === 'number'
        ? p.issue.number
        : undefined;
  return { name, ...(pull !== undefined ? { pull } : {}) };
}

export interface JobRefs {
  /** GITHUB_REF, as GitHub sets it for the event. */
  ref: string;
  /** GITHUB_SHA. */
  sha: string;
  /** GITHUB_HEAD_REF and GITHUB_BASE_REF: set only for pull_request and pull_request_target. */
  headRef?: string;
  baseRef?: string;
  /** A fork's `pull_request` run: no repository secrets, and a read-only GITHUB_TOKEN. */
  restricted: boolean;
}

/** GITHUB_REF and GITHUB_SHA for an event, from the table in GitHub's documentation. */
export function jobRefsFor(remote: Remote, event: JobEvent): JobRefs {
  const pr = event.pull !== undefined ? remote.pull(event.pull) : undefined;
  const onBranch = (branch: string) => ({ ref: `refs/heads/${branch}`, sha: remote.branches()[branch] });
  if (MERGE_REF_EVENTS.has(event.name)) {
    if (!pr) throw new Error(`runner model: ${event.name} needs the pull request's number`);
    if (!pr.mergeSha)
      throw new Error(
        `runner model: pull request #${pr.number} conflicts with its base: GitHub makes no merge ref and runs no ${event.name} workflow for it`,
      );
    const forPr = event.name === 'pull_request' ? { headRef: pr.headRef, baseRef: pr.baseRef } : {};
    return {
      ref: `refs/pull/${pr.number}/merge`,
      sha: pr.mergeSha,
      ...forPr,
      restricted: event.name === 'pull_request' && pr.isFork,
    };
  }
  if (event.name === 'pull_request_target') {
    if (!pr) throw new Error("runner model: pull_request_target needs the pull request's number");
    return { ...onBranch(pr.baseRef), headRef: pr.headRef, baseRef: pr.baseRef, restricted: false };
  }
  if (event.name === 'workflow_dispatch') {
    const ref = event.dispatchRef ?? `refs/heads/${remote.defaultBranch}`;
    const sha = git(remote.dir, 'rev-parse', '--verify', `${ref}^{commit}`);
    return { ref, sha, restricted: false };
  }
  if (DEFAULT_BRANCH_EVENTS.has(event.name)) return { ...onBranch(remote.defaultBranch), restricted: false };
  throw new Error(`runner model: no facts for the event '${event.name}'`);
}

// ---- actions/checkout ----------------------------------------------------------------------

export interface CheckoutOptions {
  /** `with: ref:` (a branch, `refs/pull/N/head`, a tag or a commit id); default the event's ref and SHA. */
  ref?: string;
  /** `with: fetch-depth:`; default 1, 0 for all history. */
  fetchDepth?: number;
  /** `with: persist-credentials:`; default true. */
  persistCredentials?: boolean;
  /** The job's GITHUB_TOKEN, persisted into .git/config (default the e2e runner's). */
  token?: string;
}

export interface Checkout {
  /** GITHUB_WORKSPACE. */
  dir: string;
  /** The commit checked out. */
  sha: string;
  /** The branch checked out, or undefined for a detached HEAD (a merge ref, a commit). */
  branch?: string;
}

export const RUNNER_TOKEN = 'ghs_e2eRunnerToken0000000000000000000000';
/** Where actions/checkout writes the token when credentials persist. */
export const CHECKOUT_HEADER_KEY = 'http.https://github.com/.extraheader';
export const checkoutHeader = (token: string) =>
  `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;

/** What actions/checkout (its defaults unless told) leaves in GITHUB_WORKSPACE for a job on `refs`. */
export function checkoutFor(remote: Remote, refs: Pick<JobRefs, 'ref' | 'sha'>, o: CheckoutOptions = {}): Checkout {
  const dir = makeTempDir('agent-action-workspace-');
  // No identity and no system config: the runner's git has none, the action must bring its own.
  const run = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  run('init', '-q');
  run('remote', 'add', 'origin', remote.dir);
  const persist = o.persistCredentials ?? true;
  if (persist) run('config', '--local', CHECKOUT_HEADER_KEY, checkoutHeader(o.token ?? RUNNER_TOKEN));
  const { ref, commit } = o.ref ? resolveWanted(remote, o.ref) : { ref: refs.ref, commit: refs.sha };
  const target = destinationOf(ref);
  const depth = o.fetchDepth ?? 1;
  const spec = target ? `+${commit}:${target.tracking}` : commit;
  if (depth > 0)
    run(
      '-c',
      'protocol.version=2',
      'fetch',
      '-q',
      '--no-tags',
      '--prune',
      '--no-recurse-submodules',
      `--depth=${depth}`,
      'origin',
      spec,
    );
  else {
    // getRefSpecForAllHistory: every branch and tag, and a pull ref by its commit.
    const pullSpec = ref.startsWith('refs/pull/') ? [spec] : [];
    run(
      '-c',
      'protocol.version=2',
      'fetch',
      '-q',
      '--prune',
      '--no-recurse-submodules',
      'origin',
      '+refs/heads/*:refs/remotes/origin/*',
      '+refs/tags/*:refs/tags/*',
      ...pullSpec,
    );
  }
  if (target?.branch) run('checkout', '-q', '--force', '-B', target.branch, target.tracking);
  else run('checkout', '-q', '--force', target ? target.tracking : commit);
  return { dir, sha: run('rev-parse', 'HEAD'), ...(target?.branch ? { branch: target.branch } : {}) };
}

/** A `with: ref:` as checkout reads it: a qualified ref, a branch name, or a commit id. */
function resolveWanted(remote: Remote, wanted: string): { ref: string; commit: string } {
  if (/^[0-9a-f]{40}$/i.test(wanted)) return { ref: '', commit: wanted };
  const ref = wanted.startsWith('refs/') ? wanted : `refs/heads/${wanted}`;
  return { ref, commit: git(remote.dir, 'rev-parse', '--verify', `${ref}^{commit}`) };
}

/** Where checkout stores what it fetched: ref-helper.ts's getRefSpec and getCheckoutInfo. */
function destinationOf(ref: string): { tracking: string; branch?: string } | undefined {
  if (!ref) return undefined;
  if (ref.startsWith('refs/heads/')) {
    const branch = ref.slice('refs/heads/'.length);
    return { tracking: `refs/remotes/origin/${branch}`, branch };
  }
  if (ref.startsWith('refs/pull/')) return { tracking: `refs/remotes/pull/${ref.slice('refs/pull/'.length)}` };
  return { tracking: ref };
}

// ---- a job ---------------------------------------------------------------------------------

export interface Job {
  /** The event that started the job. */
  event: JobEvent;
  refs: JobRefs;
  checkout: Checkout;
  /** The runner's variables for this event (GITHUB_REF, GITHUB_SHA, GITHUB_HEAD_REF, GITHUB_BASE_REF). */
  env: Record<string, string>;
}

/** A job for `event` whose first step is `actions/checkout` with `o`. */
export function jobFor(remote: Remote, event: JobEvent, o: CheckoutOptions = {}): Job {
  const refs = jobRefsFor(remote, event);
  const checkout = checkoutFor(remote, refs, o);
  const env: Record<string, string> = {
    GITHUB_REF: refs.ref,
    GITHUB_SHA: refs.sha,
    GITHUB_REPOSITORY: remote.repository,
    GITHUB_REPOSITORY_OWNER: remote.repository.split('/')[0],
  };
  if (refs.headRef !== undefined) env.GITHUB_HEAD_REF = refs.headRef;
  if (refs.baseRef !== undefined) env.GITHUB_BASE_REF = refs.baseRef;
  if (refs.ref.startsWith('refs/heads/')) env.GITHUB_REF_NAME = refs.ref.slice('refs/heads/'.length);
  else if (refs.ref.startsWith('refs/pull/')) env.GITHUB_REF_NAME = refs.ref.slice('refs/pull/'.length); // "2/merge", as GitHub names it
  return { event, refs, checkout, env };
}

/** The files GitHub lists for a pull request (GET /pulls/{n}/files): base...head, with patches. */
export function pullFiles(
  remote: Remote,
  number: number,
): Array<{
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  patch?: string;
  additions: number;
  deletions: number;
}> {
  const p = remote.pull(number);
  const base = git(remote.dir, 'merge-base', p.baseSha, p.headSha);
  const statuses = git(remote.dir, 'diff', '--no-renames', '--name-status', '-z', base, p.headSha)
    .split('\0')
    .filter(Boolean);
  const out: ReturnType<typeof pullFiles> = [];
  for (let i = 0; i + 1 < statuses.length; i += 2) {
    const letter = statuses[i];
    const filename = statuses[i + 1];
    const status = letter === 'A' ? 'added' : letter === 'D' ? 'removed' : 'modified';
    const diff = git(remote.dir, 'diff', '--no-color', '--no-ext-diff', base, p.headSha, '--', filename);
    const hunkAt = diff.indexOf('\n@@');
    const patch = hunkAt >= 0 ? diff.slice(hunkAt + 1) : undefined;
    const body = (patch ?? '').split('\n');
    out.push({
      filename,
      status,
      ...(patch !== undefined ? { patch } : {}),
      additions: body.filter((l) => l.startsWith('+')).length,
      deletions: body.filter((l) => l.startsWith('-')).length,
    });
  }
  return out;
}

/** A repository of `files` on "GitHub", and the job `event` starts on it (default: a comment on an issue). */
export function createJob(
  files: Files,
  event: JobEvent = { name: 'issue_comment' },
  o: CheckoutOptions = {},
): Job & { remote: Remote } {
  const remote = createRemote({ files });
  return { ...jobFor(remote, event, o), remote };
}
