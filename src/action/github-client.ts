/**
 * The GitHub client, composed once: Octokit with the REST methods, retry (5xx) and throttling
 * (primary and secondary rate limits, waiting `retry-after`) plugins, the runner's API URL, and one
 * hook that logs each request and redacts secrets from every body the action posts. A 403 "Resource
 * not accessible by integration" comes back naming the `permissions:` line the request needed.
 *
 * Importing this module evaluates `@actions/github`, which reads GITHUB_EVENT_PATH at once (its
 * `context`); main.ts imports it only after it has read and checked the event file itself.
 */
import { GitHub, defaults, getOctokitOptions } from '@actions/github/lib/utils';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { isPermissionRefusal, permissionHint, scopeOfRequest } from './permissions.js';
import { redactSecrets } from '../common/redact.js';

const Client = GitHub.plugin(retry, throttling);
export type GitHubClient = InstanceType<typeof Client>;

export interface GitHubClientOptions {
  token: string;
  baseUrl: string;
  /** Values replaced by `***` in anything posted. */
  secrets: readonly string[];
  log?: (line: string) => void;
  /**
   * Multiplier from GitHub's `retry-after` seconds (and retry back-off steps) to ms: 1000 in
   * production, small in tests so a 403 secondary limit with `retry-after: 1` waits milliseconds.
   */
  retryAfterBaseMs?: number;
  /** 'github': GitHub's recommended pacing of writes (1 s apart, 3 s for notifying ones); 'none' for loopback tests. */
  pacing?: 'github' | 'none';
  retries?: number;
  /** Called for every HTTP request sent, retries included: how a run counts its API calls. */
  onHttpRequest?: () => void;
}

/**
 * The toolkit's request defaults (its proxy-aware fetch) with every call counted. Counting at fetch,
 * below the retry and throttling plugins, sees each attempt: a 403 retried after `retry-after` is two.
 */
function countingRequest(onHttpRequest: (() => void) | undefined): { request?: Record<string, unknown> } {
  if (!onHttpRequest) return {};
  const request = (defaults.request ?? {}) as { fetch?: typeof fetch };
  const inner = request.fetch ?? fetch;
  return {
    request: {
      ...request,
      fetch: (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => (
        onHttpRequest(),
        inner(input, init)
      ),
    },
  };
}

/** A Bottleneck group stand-in that schedules at once: no pacing against a loopback server. */
const immediateGroup = {
  key: () => ({
    schedule: (_opts: unknown, fn: (...a: unknown[]) => unknown, ...args: unknown[]) => Promise.resolve(fn(...args)),
  }),
};

export function createGitHubClient(opts: GitHubClientOptions): GitHubClient {
  const log = opts.log ?? (() => {});
  const base = opts.retryAfterBaseMs ?? 1000;
  const retriesAllowed = opts.retries ?? 3;
  const pacing = opts.pacing === 'none' ? { write: immediateGroup, notifications: immediateGroup } : {};
  const octokit = new Client({
    ...getOctokitOptions(opts.token, { baseUrl: opts.baseUrl, ...countingRequest(opts.onHttpRequest) }),
    retry: { retryAfterBaseValue: base, retries: retriesAllowed },
    throttle: {
      ...(pacing as object),
      retryAfterBaseValue: base,
      // Each wait is logged; retry a few times, then let the error surface to the caller.
      // eslint-disable-next-line max-params -- @octokit/plugin-throttling fixes this callback's shape
      onRateLimit: (after: number, o: { method: string; url: string }, _k: unknown, count: number) => {
        log(`rate limited on ${o.method} ${o.url}; retry ${count + 1} in ${after}s`);
        return count < retriesAllowed;
      },
      // eslint-disable-next-line max-params -- @octokit/plugin-throttling fixes this callback's shape
      onSecondaryRateLimit: (after: number, o: { method: string; url: string }, _k: unknown, count: number) => {
        log(`secondary rate limit on ${o.method} ${o.url}; retry ${count + 1} in ${after}s`);
        return count < retriesAllowed;
      },
    },
  });
  octokit.hook.before('request', (options) => {
    for (const key of ['body', 'title', 'message'] as const) {
      const value = (options as Record<string, unknown>)[key];
      if (typeof value === 'string') (options as Record<string, unknown>)[key] = redactSecrets(value, opts.secrets);
    }
    const comments = (options as { comments?: unknown }).comments;
    if (Array.isArray(comments)) {
      for (const c of comments as Array<{ body?: unknown }>)
        if (typeof c.body === 'string') c.body = redactSecrets(c.body, opts.secrets);
    }
    log(`github: ${options.method} ${options.url}`);
  });
  // After the plugins' own handling (registered last, so outermost): the error the caller sees.
  octokit.hook.error('request', (error, options) => {
    const e = error as { status?: number; message: string };
    const scope = isPermissionRefusal(e.status, e.message) ? scopeOfRequest(options.method, options.url) : undefined;
    if (scope) e.message = `${e.message} (${permissionHint(scope)})`;
    throw error;
  });
  return octokit;
}
