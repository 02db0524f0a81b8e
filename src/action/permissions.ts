/**
 * What GitHub's 403 "Resource not accessible by integration" means for a workflow: the job's
 * `permissions:` lack the scope that request needs. GitHub does not say which; this table does, so
 * the run's error names the line to add. A git push refused with 403 is the same, for `contents`.
 *
 * The scopes are the GITHUB_TOKEN permissions of GitHub's "Controlling permissions for
 * GITHUB_TOKEN" page; which one a REST route needs is in each route's "Fine-grained access tokens"
 * section of the REST reference (a pull request's conversation is its issue: `issues: write` is
 * enough for its comments and labels).
 */

export type Scope = `${'contents' | 'issues' | 'pull-requests'}: ${'read' | 'write'}`;

type Area = 'contents' | 'issues' | 'pull-requests';

/** REST routes under /repos/{owner}/{repo}/, by their first path segment: the permission area they need. */
const AREAS: ReadonlyArray<readonly [RegExp, Area]> = [
  [/^pulls(\/|$)/, 'pull-requests'],
  [/^(issues|labels)(\/|$)/, 'issues'],
  [/^(git|contents|commits|branches|merges)(\/|$)/, 'contents'],
];

/**
 * The scope a REST request needs, from its method and route (a template such as
 * `/repos/{owner}/{repo}/pulls` or a path): reads need `read`, anything else `write`. Undefined for
 * a route outside the table (the collaborator permission, say, which needs only metadata).
 */
export function scopeOfRequest(method: string, url: string): Scope | undefined {
  const rest = /^\/repos\/[^/]+\/[^/]+\/(.*)$/.exec(url.replace(/^https?:\/\/[^/]+/, '').split('?')[0])?.[1];
  if (rest === undefined) return undefined;
  const area = AREAS.find(([re]) => re.test(rest))?.[1];
  if (!area) return undefined;
  return `${area}: ${method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD' ? 'read' : 'write'}`;
}

/** GitHub's answer when the token's permissions lack a scope (a GitHub App's token, GITHUB_TOKEN included). */
export const isPermissionRefusal = (status: number | undefined, message: string): boolean =>
  status === 403 && /Resource not accessible by integration/i.test(message);

/** What git prints when GitHub refuses a push for want of `contents: write`. */
export const isGitPermissionRefusal = (output: string): boolean =>
  /The requested URL returned error: 403|Permission to \S+ denied to /i.test(output);

const HINT_PREFIX = "the workflow's token lacks";

/** The sentence added to a refusal: the `permissions:` line to add. */
export const permissionHint = (scope: Scope): string =>
  `${HINT_PREFIX} \`${scope}\`: add \`${scope}\` to the job's \`permissions:\` (or give that permission to the token in \`github-token\`)`;

/**
 * A message that reports a refusal, with the hint if it lacks one: an API refusal already carries
 * it (github-client.ts adds it); a git push refused with 403 gets `contents: write`.
 */
export function withPermissionHint(message: string): string {
  if (message.includes(HINT_PREFIX) || !isGitPermissionRefusal(message)) return message;
  return `${message} (${permissionHint('contents: write')})`;
}

/** The scope a message (or a problem line) names as missing, or undefined when it reports no refusal. */
export function missingScopeIn(message: string): Scope | undefined {
  const named = new RegExp(`${HINT_PREFIX} \`([a-z-]+: (?:read|write))\``).exec(message)?.[1];
  if (named) return named as Scope;
  return isGitPermissionRefusal(message) ? 'contents: write' : undefined;
}
