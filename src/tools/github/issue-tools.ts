/**
 * Duplicate finding for triage: `search_issues` reads (GitHub's issue search, through a function
 * the action passes in: this layer knows no GitHub client) and `mark_duplicate` records the issue
 * the model found, for the action to link when it publishes. The model can mark only an issue a
 * search of this conversation returned, never the issue itself. Titles and labels are other
 * people's text: sanitized and fenced like the task context.
 */
import { fenceUntrusted, sanitizeUntrusted } from '../../context/untrusted.js';
import { oneLine } from '../../common/text.js';
import { defineTool, ToolFailure, type Tool } from '../define-tool.js';
import { guardRun } from '../tool-output.js';

export interface IssueHit {
  number: number;
  title: string;
  state: string;
  labels: string[];
}

/** Resolves the model's free text to matching issues of the repository (qualifiers are the searcher's business). */
export type SearchIssues = (text: string, signal: AbortSignal) => Promise<IssueHit[]>;

export interface DuplicateOf {
  number: number;
  reason: string;
}

export interface IssueToolsOptions {
  search: SearchIssues;
  /** The issue being triaged: never its own duplicate, left out of results. */
  self: number;
  /** Searches per conversation (GitHub allows 30 search requests a minute per token). */
  maxSearches?: number;
  /** Results shown per search. */
  maxResults?: number;
}

export interface IssueTools {
  tools: Tool[];
  /** The duplicate the model marked, if any (the last call wins). */
  duplicateOf(): DuplicateOf | undefined;
}

// Plain JSON Schema, as the built-in tools' (src/tools/define-tool.ts says why).
const SearchParams = {
  type: 'object',
  required: ['query'],
  properties: {
    query: {
      type: 'string',
      minLength: 2,
      maxLength: 200,
      description:
        'Words to look for in the titles and descriptions of other issues of this repository, e.g. the error message or the feature named.',
    },
  },
  additionalProperties: false,
} as const;

const DuplicateParams = {
  type: 'object',
  required: ['issue_number', 'reason'],
  properties: {
    issue_number: {
      type: 'integer',
      minimum: 1,
      description: 'The number of the earlier issue, as search_issues listed it.',
    },
    reason: { type: 'string', minLength: 1, maxLength: 300, description: 'One sentence: what the two reports share.' },
  },
  additionalProperties: false,
} as const;

/** Fresh per conversation: the searches made and the duplicate recorded belong to one issue's triage. */
export function createIssueTools(o: IssueToolsOptions): IssueTools {
  const maxSearches = o.maxSearches ?? 3;
  const maxResults = o.maxResults ?? 8;
  const seen = new Set<number>();
  let searches = 0;
  let duplicate: DuplicateOf | undefined;

  const searchIssues = defineTool({
    name: 'search_issues',
    kind: 'search',
    description: `Searches the other issues of this repository (open and closed) for words, to find an earlier report of the same problem. At most ${maxSearches} searches per issue; results list number, state, title and labels.`,
    params: SearchParams,
    prepare: (args) => ({
      title: `search issues for ${JSON.stringify(oneLine(args.query)).slice(0, 80)}`,
      paths: [],
      policyArgs: { query: args.query },
      run: ({ signal }) =>
        guardRun(signal, async () => {
          if (searches >= maxSearches)
            throw new ToolFailure('failed', `at most ${maxSearches} searches per issue; decide with what you found`);
          searches++;
          const hits = (await o.search(args.query, signal)).filter((h) => h.number !== o.self).slice(0, maxResults);
          for (const h of hits) seen.add(h.number);
          if (hits.length === 0) return { forModel: 'No other issue matches.', forHuman: 'no matches' };
          const lines = hits.map(
            (h) =>
              `#${h.number} (${h.state}) ${oneLine(sanitizeUntrusted(h.title))}${h.labels.length ? ` [${h.labels.map((l) => oneLine(l)).join(', ')}]` : ''}`,
          );
          return {
            forModel: `Issues matching (${hits.length}):\n${fenceUntrusted('search-results', lines.join('\n'))}`,
            forHuman: `${hits.length} match(es)`,
          };
        }),
    }),
  });

  const markDuplicate = defineTool({
    name: 'mark_duplicate',
    kind: 'other',
    description:
      'Records that this issue reports the same thing as an earlier issue found with search_issues; the triage comment links it. Call it only for a clear match.',
    params: DuplicateParams,
    prepare(args) {
      if (args.issue_number === o.self)
        throw new ToolFailure('invalid_args', 'an issue cannot be a duplicate of itself');
      if (!seen.has(args.issue_number))
        throw new ToolFailure(
          'invalid_args',
          `#${args.issue_number} was not among the search results; search first and mark only an issue you found`,
        );
      return {
        title: `mark as duplicate of #${args.issue_number}`,
        paths: [],
        policyArgs: { ...args },
        run: async () => {
          duplicate = { number: args.issue_number, reason: oneLine(args.reason) };
          return {
            forModel: `Recorded: duplicate of #${args.issue_number}. The triage comment links it when the run ends.`,
            forHuman: `duplicate of #${args.issue_number}`,
          };
        },
      };
    },
  });

  return { tools: [searchIssues, markDuplicate] as unknown as Tool[], duplicateOf: () => duplicate };
}
