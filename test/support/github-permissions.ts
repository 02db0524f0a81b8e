/**
 * What a job's `permissions:` block lets GITHUB_TOKEN do, for the operations the fake GitHub
 * serves. From GitHub's "Permissions required for GitHub Apps" (docs.github.com/rest/overview/
 * permissions-required-for-github-apps) and each endpoint's "Fine-grained access tokens" section:
 * metadata (read) is always granted and covers GET /repos/{owner}/{repo}, a collaborator's
 * permission and search; issue endpoints take `issues`, or `pull-requests` when the number is a pull
 * request; pull request endpoints take `pull-requests`; git refs take `contents`. Without the
 * scope GitHub answers 403 "Resource not accessible by integration".
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

type Scope = 'contents' | 'issues' | 'pull-requests' | 'metadata' | 'actions' | 'checks' | 'statuses';
type Level = 'read' | 'write';
/** A workflow job's `permissions:` map (`{ contents: 'write', issues: 'read' }`); absent scopes are `none`. */
export type JobPermissions = Partial<Record<Scope | (string & {}), Level | 'none'>>;

interface Need {
  scope: Scope;
  level: Level;
  /** On an issue number: `pull-requests` also serves when the number is a pull request. */
  orPullRequest?: boolean;
}

const read = (scope: Scope, orPullRequest = false): Need => ({ scope, level: 'read', orPullRequest });
const write = (scope: Scope, orPullRequest = false): Need => ({ scope, level: 'write', orPullRequest });

/** operationId -> the scope and level it needs. */
const OPERATION_NEEDS: Record<string, Need> = {
  'repos/get': read('metadata'),
  'repos/get-collaborator-permission-level': read('metadata'),
  'search/issues-and-pull-requests': read('metadata'),
  'issues/list-labels-for-repo': read('issues', true),
  'issues/list-for-repo': read('issues'),
  'issues/create': write('issues'),
  'issues/get': read('issues', true),
  'issues/list-comments': read('issues', true),
  'issues/create-comment': write('issues', true),
  'issues/get-comment': read('issues', true),
  'issues/update-comment': write('issues', true),
  'issues/add-labels': write('issues', true),
  'issues/remove-label': write('issues', true),
  'reactions/create-for-issue-comment': write('issues', true),
  'reactions/create-for-pull-request-review-comment': write('pull-requests'),
  'pulls/get': read('pull-requests'),
  'pulls/list': read('pull-requests'),
  'pulls/create': write('pull-requests'),
  'pulls/list-files': read('pull-requests'),
  'pulls/list-reviews': read('pull-requests'),
  'pulls/get-review': read('pull-requests'),
  'pulls/create-review': write('pull-requests'),
  'pulls/list-comments-for-review': read('pull-requests'),
  'pulls/list-review-comments': read('pull-requests'),
  'pulls/get-review-comment': read('pull-requests'),
  'pulls/create-review-comment': write('pull-requests'),
  'pulls/create-reply-for-review-comment': write('pull-requests'),
  'git/get-ref': read('contents'),
  'git/create-ref': write('contents'),
  'git/update-ref': write('contents'),
  'git/delete-ref': write('contents'),
  'git/create-blob': write('contents'),
  'git/create-tree': write('contents'),
  'git/create-commit': write('contents'),
};

const grants = (have: JobPermissions, need: Scope, level: Level): boolean => {
  if (need === 'metadata') return true; // every GITHUB_TOKEN can read metadata
  const got = have[need] ?? 'none';
  return got === 'write' || (got === 'read' && level === 'read');
};

/**
 * The `permissions:` line an operation lacks (`pull-requests: write`), or undefined when the job
 * may do it. An operation missing from the table is the fake's bug and throws.
 */
export function missingPermission(
  operationId: string,
  have: JobPermissions,
  isPullRequest: boolean,
): string | undefined {
  const need = OPERATION_NEEDS[operationId];
  if (!need) throw new Error(`github-permissions: no scope recorded for ${operationId}; add it to OPERATION_NEEDS`);
  if (grants(have, need.scope, need.level)) return undefined;
  if (need.orPullRequest && isPullRequest && grants(have, 'pull-requests', need.level)) return undefined;
  return `${need.scope}: ${need.level}`;
}

/** The `permissions:` of the `agent` job in this repository's example .github/workflows/agent.yml. */
export function readExamplePermissions(): JobPermissions {
  const file = new URL('../../.github/workflows/agent.yml', import.meta.url);
  const workflow = parse(readFileSync(file, 'utf8')) as { jobs: Record<string, { permissions?: JobPermissions }> };
  const permissions = workflow.jobs.agent?.permissions;
  if (!permissions) throw new Error(`github-permissions: ${file.pathname} has no jobs.agent.permissions`);
  return permissions;
}
