/**
 * The triage plan: every open issue carrying `triage-label`, or the issues the `triage-query` search
 * finds (triage-query.ts; all pages, oldest first), minus those
 * triaged since their last update (triage-marker.ts), split into at most `max-shards` shards of at
 * most `shard-size` issues for a job matrix. Each shard carries its share of GitHub's write budget,
 * so `max-parallel` shards writing at once stay under it together. The plan only reads.
 */
import type { OwnAccount } from '../authorize.js';
import type { GitHubClient } from '../github-client.js';
import type { RepoRef } from '../run-context.js';
import { findCoveringMarker, labelNamesOf, markerLookupSince, type MarkerComment } from './triage-marker.js';
import type { WriteBudget } from './write-pacer.js';

export interface PlanOptions {
  triageLabel: string;
  /** `triage-query`, scoped (triage-query.ts): selects the issues instead of the label. */
  query?: string;
  triagedLabel: string;
  /** Infinity for the whole backlog (triage without a matrix). */
  maxShards: number;
  shardSize: number;
  maxParallel: number;
  /** GitHub's guidance for the token as a whole: 80 a minute, 500 an hour. */
  writeBudget: WriteBudget;
  /** Whose triaged markers count: the action's own account (asked of the API at the first marker lookup). */
  own: OwnAccount;
}

export interface PlannedIssue {
  number: number;
  title: string;
  createdAt: string;
  updatedAt: string;
}

interface SkippedIssue extends PlannedIssue {
  reason: string;
}

/** One matrix entry; the key names are the inputs the workflow passes them to. */
export interface ShardEntry {
  shard: number;
  issues: number[];
  'writes-per-minute': number;
  'writes-per-hour': number;
}

export interface TriagePlan {
  shards: ShardEntry[];
  /** To do, oldest first (what the shards hold). */
  todo: PlannedIssue[];
  skipped: SkippedIssue[];
  /** Labelled issues beyond max-shards x shard-size, not examined: the next run's. */
  deferred: PlannedIssue[];
  /** Open issues listed with the label (pull requests excluded). */
  listed: number;
}

/** An issue as the list endpoint gives it (the fields the plan reads). */
interface ListedIssue {
  number: number;
  title: string;
  created_at: string;
  updated_at: string;
  labels: ReadonlyArray<string | { name?: string | null }>;
  pull_request?: unknown;
}

/** Lists and checks; never writes. The marker lookup costs one request per issue carrying triaged-label. */
export async function readTriagePlan(octokit: GitHubClient, repo: RepoRef, o: PlanOptions): Promise<TriagePlan> {
  const capacity = o.maxShards * o.shardSize;
  const todo: PlannedIssue[] = [];
  const skipped: SkippedIssue[] = [];
  const deferred: PlannedIssue[] = [];
  let listed = 0;
  for await (const data of listCandidates(octokit, repo, o)) {
    for (const raw of data) {
      if (raw.pull_request) continue; // the issues endpoint lists pull requests too
      listed++;
      const issue: PlannedIssue = {
        number: raw.number,
        title: raw.title,
        createdAt: raw.created_at,
        updatedAt: raw.updated_at,
      };
      if (todo.length >= capacity) {
        deferred.push(issue);
        continue;
      }
      const done = labelNamesOf(raw.labels).includes(o.triagedLabel)
        ? await readCoveringMarker(octokit, repo, { issue: raw, own: o.own })
        : undefined;
      if (done) skipped.push({ ...issue, reason: `triaged at ${done.updated_at}, not updated since` });
      else todo.push(issue);
    }
  }
  const groups = splitIntoShards(
    todo.map((i) => i.number),
    o.maxShards,
    o.shardSize,
  );
  const share = shareWriteBudget(o.writeBudget, Math.min(o.maxParallel, Math.max(1, groups.length)));
  const shards = groups.map((issues, i) => ({
    shard: i + 1,
    issues,
    'writes-per-minute': share.perMinute,
    'writes-per-hour': share.perHour,
  }));
  return { shards, todo, skipped, deferred, listed };
}

const SEARCH_MAX_PAGES = 10;

/** The candidates, page by page, oldest first: the label's open issues, or the query's hits. */
async function* listCandidates(octokit: GitHubClient, repo: RepoRef, o: PlanOptions): AsyncGenerator<ListedIssue[]> {
  if (o.query !== undefined) {
    // Page by page by hand: a search answer carries fields besides its items (search_type) that
    // octokit's paginate cannot unwrap. GitHub serves a search's first 1000 results.
    for (let page = 1; page <= SEARCH_MAX_PAGES; page++) {
      const { data } = await octokit.rest.search.issuesAndPullRequests({
        q: o.query,
        sort: 'created',
        order: 'asc',
        per_page: 100,
        page,
      });
      yield data.items as ListedIssue[];
      if (data.items.length < 100) return;
    }
    return;
  }
  const pages = octokit.paginate.iterator(octokit.rest.issues.listForRepo, {
    ...repo,
    state: 'open',
    labels: o.triageLabel,
    sort: 'created',
    direction: 'asc',
    per_page: 100,
  });
  for await (const { data } of pages) yield data as ListedIssue[];
}

async function readCoveringMarker(
  octokit: GitHubClient,
  repo: RepoRef,
  { issue, own }: { issue: ListedIssue; own: OwnAccount },
): Promise<MarkerComment | undefined> {
  const comments = await octokit.paginate(octokit.rest.issues.listComments, {
    ...repo,
    issue_number: issue.number,
    since: markerLookupSince(issue.updated_at),
    per_page: 100,
  });
  return findCoveringMarker(issue.updated_at, comments as MarkerComment[], await own.logins());
}

/**
 * Pure: `issues` (in order) into as few shards as `shardSize` allows, at most `maxShards`, sizes
 * differing by at most one, each a contiguous run (shard 1 holds the oldest). Issues past
 * maxShards x shardSize are left out.
 */
export function splitIntoShards(issues: readonly number[], maxShards: number, shardSize: number): number[][] {
  const taken = issues.slice(0, maxShards * shardSize);
  const count = Math.ceil(taken.length / shardSize);
  const out: number[][] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const size = Math.floor(taken.length / count) + (i < taken.length % count ? 1 : 0);
    out.push(taken.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Pure: each of `parallel` shards' share of the budget, never below one write. */
export const shareWriteBudget = (total: WriteBudget, parallel: number): WriteBudget => ({
  perMinute: Math.max(1, Math.floor(total.perMinute / parallel)),
  perHour: Math.max(1, Math.floor(total.perHour / parallel)),
});

/** The `shards` output: a value for `strategy.matrix` (`include` entries). */
export const matrixOf = (shards: readonly ShardEntry[]): string => JSON.stringify({ include: shards });
