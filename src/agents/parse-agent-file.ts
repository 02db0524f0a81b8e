/**
 * One agent file's YAML front matter and body, parsed and checked (Gemini CLI's local-agent
 * schema). Its own module, with the YAML parser under it: load-agents.ts imports it only when
 * `.gemini/agents/` holds a file to read.
 */
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import {
  AGENT_NAME,
  DEFAULT_AGENT_MAX_TURNS,
  DEFAULT_AGENT_TIMEOUT_MINUTES,
  type AgentDefinition,
} from './definition.js';
import type { AgentFileProblem } from './load-agents.js';

export type AgentFileParse = { ok: true; agent: AgentDefinition } | { ok: false; problems: AgentFileProblem[] };

/** Gemini CLI's front matter: `---` on the first line, YAML, `---`, then the body. */
const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n([\s\S]*))?$/;

const KNOWN = [
  'kind',
  'name',
  'description',
  'display_name',
  'tools',
  'mcp_servers',
  'model',
  'temperature',
  'max_turns',
  'timeout_mins',
];
const NEAR: Record<string, string> = {
  timeout: 'timeout_mins',
  maxTurns: 'max_turns',
  max_turn: 'max_turns',
  displayName: 'display_name',
  prompt: 'the Markdown body',
};

/** One agent file, parsed and checked. Pure: `file` only names it in messages. */
export function parseAgentFile(file: string, source: string): AgentFileParse {
  const m = FRONT_MATTER.exec(source);
  if (!m) {
    return {
      ok: false,
      problems: [
        {
          file,
          line: 1,
          message:
            'an agent file must start with YAML front matter between two `---` lines (---\\nname: my-agent\\ndescription: ...\\n---)',
        },
      ],
    };
  }
  const lines = new LineCounter();
  const doc = parseDocument(m[1], { lineCounter: lines, uniqueKeys: true });
  // The front matter starts on the file's second line.
  const at = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line + 1);
  const problems: AgentFileProblem[] = [];
  const problem = (offset: number | undefined, message: string) => problems.push({ file, line: at(offset), message });
  for (const e of doc.errors) problem(e.pos[0], `the front matter is not valid YAML: ${e.message.split('\n')[0]}`);
  if (problems.length) return { ok: false, problems };
  if (!isMap(doc.contents))
    return {
      ok: false,
      problems: [
        { file, line: 2, message: 'the front matter must be a mapping of fields (name: ..., description: ...)' },
      ],
    };

  const fields = new Map<string, { value: unknown; offset: number | undefined }>();
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    if (!KNOWN.includes(key)) {
      problem(
        offset,
        `unknown field \`${key}\`${NEAR[key] ? `; did you mean ${NEAR[key]}?` : ''} (fields: ${KNOWN.filter((k) => k !== 'mcp_servers').join(', ')})`,
      );
      continue;
    }
    fields.set(key, {
      value:
        (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ??
        (isScalar(pair.value) ? pair.value.value : pair.value),
      offset,
    });
  }
  const agent = checkFields(fields, problem, doc);
  if (problems.length || !agent) return { ok: false, problems };
  const body = (m[2] ?? '').trim();
  if (!body)
    return {
      ok: false,
      problems: [
        {
          file,
          line: 1,
          message: "the agent has no instructions: write its system prompt below the front matter's closing ---",
        },
      ],
    };
  return { ok: true, agent: { ...agent, systemPrompt: body, source: file } };
}

type Fields = Map<string, { value: unknown; offset: number | undefined }>;

function checkFields(
  fields: Fields,
  problem: (offset: number | undefined, message: string) => void,
  doc: Document,
): Omit<AgentDefinition, 'systemPrompt' | 'source'> | undefined {
  const get = (k: string) => fields.get(k);
  const bad = (k: string, what: string) => problem(get(k)?.offset, `\`${k}\` ${what}`);
  const kind = get('kind')?.value;
  if (kind !== undefined && kind !== 'local')
    bad('kind', kind === 'remote' ? 'is remote: agent-action runs local agents only' : "must be 'local'");
  if (get('mcp_servers')) bad('mcp_servers', 'is not supported: an agent uses tools of the run that invokes it');
  const name = get('name')?.value;
  if (name === undefined) problem(doc.contents?.range?.[0], 'missing field `name`');
  else if (typeof name !== 'string' || !AGENT_NAME.test(name))
    bad('name', 'must be a slug: lowercase letters, digits, - and _');
  const description = get('description')?.value;
  if (description === undefined) problem(doc.contents?.range?.[0], 'missing field `description`');
  else if (typeof description !== 'string' || !description.trim()) bad('description', 'must be a non-empty text');
  const tools = get('tools')?.value;
  if (
    tools !== undefined &&
    (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string' || !/^[A-Za-z0-9_.*-]+$/.test(t)))
  ) {
    bad('tools', 'must be a list of tool names (wildcards: `*`, `prefix*`)');
  }
  const model = get('model')?.value;
  if (model !== undefined && (typeof model !== 'string' || !model.trim()))
    bad('model', 'must be a model name, or inherit');
  const temperature = get('temperature')?.value;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2))
    bad('temperature', 'must be a number from 0 to 2');
  const positive = (k: string) => {
    const v = get(k)?.value;
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < 1))
      bad(k, 'must be a whole number of at least 1');
    return typeof v === 'number' ? v : undefined;
  };
  const maxTurns = positive('max_turns');
  const timeoutMins = positive('timeout_mins');
  const displayName = get('display_name')?.value;
  if (displayName !== undefined && typeof displayName !== 'string') bad('display_name', 'must be a text');
  if (typeof name !== 'string' || typeof description !== 'string') return undefined;
  return {
    name,
    description: description.trim(),
    ...(Array.isArray(tools) ? { tools: tools as string[] } : {}),
    ...(typeof model === 'string' && model.trim() !== 'inherit' ? { model: model.trim() } : {}),
    ...(typeof temperature === 'number' ? { temperature } : {}),
    maxTurns: maxTurns ?? DEFAULT_AGENT_MAX_TURNS,
    timeoutMs: (timeoutMins ?? DEFAULT_AGENT_TIMEOUT_MINUTES) * 60_000,
    firstMessage: (prompt) => prompt,
    output: { kind: 'text' },
  };
}
