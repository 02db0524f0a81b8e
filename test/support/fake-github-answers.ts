/**
 * The vocabulary of the fake GitHub's routes (fake-github-routes.ts, fake-github-pull-routes.ts):
 * a route is a handler keyed by the operationId of GitHub's OpenAPI description, given the path
 * parameters the spec names. Answers and refusals are shaped as GitHub's: `Validation Failed` with
 * an `errors` array of `{resource, field, code, message}`, 404 `Not Found`; the server adds
 * `documentation_url` and `status` as GitHub does. Lists paginate as GitHub does: `per_page`
 * (default 30, at most 100), `page`, and a `link` header with `next`, `last`, `prev` and `first`.
 */
import type { FakeGitHubState, FakeIssue, RecordedRequest } from './fake-github.js';

export type RouteResult = { status: number; body?: unknown; headers?: Record<string, string> };
type Handler = (p: Record<string, string>, req: RecordedRequest, s: FakeGitHubState) => RouteResult;
/** operationId -> handler. */
export type Routes = Record<string, Handler>;

/** GitHub's limit on a comment's, issue's, pull request's or review's body (characters). */
const MAX_BODY = 65_536;

export const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
export const notFound = (): RouteResult => ({ status: 404, body: { message: 'Not Found' } });

interface FieldError {
  resource: string;
  code: string;
  field?: string;
  message?: string;
}

/** 422 `Validation Failed` with GitHub's error objects. */
export const validationFailed = (...errors: FieldError[]): RouteResult => ({
  status: 422,
  body: { message: 'Validation Failed', errors },
});

/** 422 `Unprocessable Entity` with plain strings (the review endpoints answer so). */
export const unprocessable = (...errors: string[]): RouteResult => ({
  status: 422,
  body: { message: 'Unprocessable Entity', errors },
});

/** The refusal of a blank or too long body, or undefined when `body` is fine. */
export function bodyRefusal(
  resource: string,
  body: string | undefined,
  o: { blankAllowed?: boolean; tooLongCode?: 'custom' | 'unprocessable' } = {},
): RouteResult | undefined {
  if (body === undefined) return undefined;
  if (!o.blankAllowed && !body.trim())
    return validationFailed({ resource, code: 'custom', field: 'body', message: 'body cannot be blank' });
  if (body.length <= MAX_BODY) return undefined;
  // Creating a comment answers `unprocessable` on `data`; editing one and the other resources `custom` on `body`.
  return o.tooLongCode === 'unprocessable'
    ? validationFailed({
        resource,
        code: 'unprocessable',
        field: 'data',
        message: `Body is too long (maximum is ${MAX_BODY} characters)`,
      })
    : validationFailed({
        resource,
        code: 'custom',
        field: 'body',
        message: `body is too long (maximum is ${MAX_BODY} characters)`,
      });
}

export const isoAt = (s: FakeGitHubState): string => new Date(s.clock()).toISOString();

/** An issue changed now: its updated_at moves (GitHub does this for comments, labels and edits). */
export const touch = (s: FakeGitHubState, i: FakeIssue): void => void (i.updated_at = isoAt(s));

export const refOf = (s: FakeGitHubState, name: string): string | undefined => s.refs.get(name) ?? s.resolveRef?.(name);

/** One page of `items` with GitHub's `link` header, built from the request's own URL. */
export function paged(r: RecordedRequest, items: readonly unknown[], wrap?: (page: unknown[]) => unknown): RouteResult {
  const per = Math.min(100, Math.max(1, Number(r.query.per_page ?? 30) || 30));
  const page = Math.max(1, Number(r.query.page ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / per));
  const slice = items.slice((page - 1) * per, page * per);
  const url = (n: number) =>
    `http://${String(r.headers.host)}${encodeURI(r.path)}?${new URLSearchParams({ ...r.query, page: String(n) })}`;
  const links: string[] = [];
  if (page < last) links.push(`<${url(page + 1)}>; rel="next"`, `<${url(last)}>; rel="last"`);
  if (page > 1) links.push(`<${url(page - 1)}>; rel="prev"`, `<${url(1)}>; rel="first"`);
  return { status: 200, body: wrap ? wrap(slice) : slice, headers: links.length ? { link: links.join(', ') } : {} };
}

export const since = (r: RecordedRequest) => (r.query.since ? Date.parse(r.query.since) : Number.NEGATIVE_INFINITY);

/** A JSON body's field, when the body is an object (the spec check has vetted its type). */
export const field = <T>(r: RecordedRequest, name: string): T | undefined =>
  r.body && typeof r.body === 'object' ? (r.body as Record<string, T>)[name] : undefined;
