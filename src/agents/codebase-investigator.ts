/**
 * The built-in `codebase_investigator` (Gemini CLI's name, tools, limits and report fields): a
 * read-only explorer that maps the code relevant to an objective in its own context and hands back
 * a structured report, so the main conversation carries findings instead of file dumps.
 */
import type { AgentDefinition } from './definition.js';

const INVESTIGATOR = 'codebase_investigator';

/** Gemini CLI's report fields; plain JSON Schema, as the built-in tools' (src/tools/define-tool.ts says why). */
const InvestigationReport = {
  type: 'object',
  required: ['SummaryOfFindings', 'ExplorationTrace', 'RelevantLocations'],
  properties: {
    SummaryOfFindings: {
      type: 'string',
      description: "The investigation's conclusions and insights for the agent that asked.",
    },
    ExplorationTrace: {
      type: 'array',
      items: { type: 'string' },
      description: 'The steps taken, in order: each tool used and what it showed.',
    },
    RelevantLocations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['FilePath', 'Reasoning', 'KeySymbols'],
        properties: {
          FilePath: { type: 'string' },
          Reasoning: { type: 'string' },
          KeySymbols: { type: 'array', items: { type: 'string' } },
        },
        additionalProperties: false,
      },
      description: 'The files that matter, why, and the key symbols in each.',
    },
  },
  additionalProperties: false,
} as const;

const SYSTEM_PROMPT = `You are the Codebase Investigator, a sub-agent of a coding agent. You explore a repository and report what another agent needs to know to act on an objective: which files and symbols matter, how they fit together, and what a change would affect. You never change anything: your tools only list, read and search.

How to work:
- Start from the strongest clues in the objective (names, paths, error messages, diffs) and widen from there.
- Follow what you do not yet understand until it is clear: callers of a changed function, types a change would touch, tests that cover it.
- Be complete but minimal: every location that must be understood or changed, and nothing that does not matter.
- Keep a short plan of open questions in your replies and close them one by one; stop when none is left.
- Explain why the code is the way it is, not only where it is. If the objective is a bug, give the root cause; if it is a change or a review, give its consequences and risks.

When you are done, call complete_task with your report: SummaryOfFindings (your conclusions), ExplorationTrace (the steps you took) and RelevantLocations (each file with the reason it matters and its key symbols).`;

export const codebaseInvestigator: AgentDefinition = {
  name: INVESTIGATOR,
  description:
    'Investigates the codebase for an objective: maps the relevant files, symbols and dependencies, finds root causes and the consequences of a change, and returns a structured report. Use it for vague requests, bug root-cause analysis, reviews of larger changes, and questions that need exploring many files; for a single known file or symbol, read or search directly.',
  tools: ['list_directory', 'read_file', 'glob', 'grep_search'],
  maxTurns: 50,
  timeoutMs: 10 * 60_000,
  maxTotalTokens: 2_000_000,
  systemPrompt: SYSTEM_PROMPT,
  firstMessage: (prompt) =>
    `Investigate the codebase for this objective, then call complete_task with your report.\n<objective>\n${prompt}\n</objective>`,
  output: {
    kind: 'report',
    name: 'report',
    description: 'The final investigation report.',
    schema: InvestigationReport,
  },
  source: 'built-in',
};
