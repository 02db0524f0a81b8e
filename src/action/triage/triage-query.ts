/**
 * The `triage-query` input: a GitHub issue search (`is:open no:label`, `label:bug -label:wontfix`)
 * that selects what the scheduled triage plan triages, instead of the issues carrying
 * `triage-label`. It is always scoped to this repository's issues: a `repo:` qualifier naming
 * another repository, or `org:`/`user:`/`owner:`, is an input error (a token that sees more must
 * not be pointed elsewhere by configuration), and `repo:<this>` and `is:issue` are added.
 */
import { AgentError } from '../../common/errors.js';
import type { RepoRef } from '../run-context.js';

const SCOPE = /^-?(repo|org|user|owner):/i;

/** Pure: the search query for `q`, or throws AgentError('input') naming the input and the qualifier. */
export function scopedTriageQuery(query: string, repo: RepoRef): string {
  const here = `${repo.owner}/${repo.repo}`;
  const kept: string[] = [];
  for (const token of query.match(/"[^"]*"|\S+/g) ?? []) {
    if (/^-?is:(pr|pull-request)$/i.test(token) || /^type:pr$/i.test(token))
      throw triageQueryError(query, `${token} selects pull requests; triage takes issues`);
    if (SCOPE.test(token)) {
      if (token.toLowerCase() === `repo:${here}`.toLowerCase()) continue;
      throw triageQueryError(
        query,
        `${token} searches outside this repository; the query is always scoped to repo:${here}`,
      );
    }
    if (/^is:issue$/i.test(token)) continue;
    kept.push(token);
  }
  return [`repo:${here}`, 'is:issue', ...kept].join(' ');
}

const triageQueryError = (query: string, why: string) =>
  new AgentError('input', `input 'triage-query' is ${JSON.stringify(query)}: ${why}`, {
    site: { input: 'triage-query' },
  });
