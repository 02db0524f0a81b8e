/**
 * The world most Action end-to-end tests start from, built on the runner model
 * (test/support/runner-model.ts): the repository on "GitHub" (a bare remote with its branches and
 * pull requests), the job the event starts (its workspace as actions/checkout leaves it, and
 * GITHUB_REF/GITHUB_SHA), the fake GitHub holding the same pull requests (head and base commits,
 * files and patches, all from the remote) and resolving refs from the remote, and the fake Gemini
 * with the test's script. `run` starts the bundled action in that job with the fake Gemini's base URL
 * and GITHUB_API_URL filled in; the test's own inputs and environment go on top. What a test checks
 * stays in the test: its threads, payload and inputs.
 */
import { closeAll, commitsBetweenOf, refsOf, runAction, type ActionRun, type RunActionOptions } from './e2e-runner.js';
import { startFakeGemini, type FakeGemini, type FakeReply } from './fake-gemini.js';
import { startFakeGitHub, type FakeGitHub, type FakeIssue, type FakeUser } from './fake-github.js';
import {
  createRemote,
  jobFor,
  pullFiles,
  type CheckoutOptions,
  type Job,
  type JobEvent,
  type PullSpec,
  type Remote,
  type RemoteSpec,
} from './runner-model.js';

/** A pull request on the remote, and what the fake GitHub says about it besides its commits. */
export interface WorldPull extends PullSpec {
  title?: string;
  body?: string;
  user?: FakeUser;
  draft?: boolean;
}

/** Names of the remote's commits when the world was made, and the paths of its repositories. */
export interface WorldRepo {
  /** The job's workspace (GITHUB_WORKSPACE). */
  dir: string;
  /** The bare repository on "GitHub": where pushes land. */
  origin: string;
  /** The default branch's commit. */
  mainSha: string;
  /** Branch (and pull request head) -> commit. */
  shas: Record<string, string>;
}

export interface ActionWorld {
  remote: Remote;
  /** The job the world's event starts. */
  job: Job;
  ws: WorldRepo;
  gh: FakeGitHub;
  gemini: FakeGemini;
  /** The action as a step of the world's job (or of `o.job`); the event must be the job's. */
  run(o: Omit<RunActionOptions, 'job'> & { job?: Job }): Promise<ActionRun>;
  /** Stops both fakes (the temporary folders go with the test file's cleanup). */
  close(): Promise<void>;
}

/** The fake GitHub's pull request for one of the remote's: head, base and files as the remote has them. */
export function addPullFromRemote(
  gh: FakeGitHub,
  remote: Remote,
  p: Pick<WorldPull, 'number' | 'title' | 'body' | 'user' | 'draft'>,
): FakeIssue {
  const state = remote.pull(p.number);
  return gh.addPull({
    number: p.number,
    title: p.title ?? `Pull request ${p.number}`,
    body: p.body ?? '',
    user: p.user ?? { login: 'contributor' },
    pull: {
      head: { ref: state.headRef, sha: state.headSha, repoFullName: state.headRepository },
      base: { ref: state.baseRef, sha: state.baseSha },
      files: pullFiles(remote, p.number),
      ...(p.draft !== undefined ? { draft: p.draft } : {}),
    },
  });
}

/** Branch and pull-request-head names -> commits, as the remote has them now. */
export function shasOf(remote: Remote, pulls: readonly PullSpec[] = []): Record<string, string> {
  const shas = { ...remote.branches() };
  for (const p of pulls) shas[p.head] = remote.pull(p.number).headSha;
  return shas;
}

export interface WorldSpec extends Omit<RemoteSpec, 'pulls'> {
  pulls?: WorldPull[];
  /** The event whose job the world's runs are steps of (`{ name: 'issue_comment', pull: 2 }`). */
  event: JobEvent;
  /** The workflow's `actions/checkout` inputs (default: checkout's own defaults). */
  checkout?: CheckoutOptions;
  script: FakeReply[];
}

export async function startActionWorld(o: WorldSpec): Promise<ActionWorld> {
  const remote = createRemote(o);
  const job = jobFor(remote, o.event, o.checkout);
  const gh = await startFakeGitHub();
  gh.state.resolveRef = refsOf(remote.dir);
  gh.state.commitsBetween = commitsBetweenOf(remote.dir);
  // The Git database API writes into the same repository pushes land in (fake-github-git-data.ts).
  gh.state.gitDir = remote.dir;
  for (const p of o.pulls ?? []) addPullFromRemote(gh, remote, p);
  const gemini = await startFakeGemini(o.script);
  const shas = shasOf(remote, o.pulls);
  return {
    remote,
    job,
    ws: { dir: job.checkout.dir, origin: remote.dir, mainSha: shas[remote.defaultBranch], shas },
    gh,
    gemini,
    run: (r) => {
      const runJob = r.job ?? job;
      if (r.eventName !== runJob.event.name)
        throw new Error(
          `action world: a ${r.eventName} run in the job of a ${runJob.event.name} event; pass the job a ${r.eventName} event starts`,
        );
      return runAction({
        ...r,
        job: runJob,
        inputs: { 'gemini-base-url': gemini.baseUrl, ...r.inputs },
        env: { GITHUB_API_URL: gh.url, ...r.env },
      });
    },
    close: () => closeAll(gh, gemini),
  };
}
