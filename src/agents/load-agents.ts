/**
 * User agents: `.gemini/agents/*.md` under the trusted configuration root (never the pull
 * request's work tree), each a Markdown file whose YAML front matter is Gemini CLI's local-agent
 * schema (`name`, `description`, `display_name`, `kind`, `tools`, `model`, `temperature`,
 * `max_turns`, `timeout_mins`) and whose body is the agent's system prompt. Front matter is read
 * with a real YAML parser (parse-agent-file.ts, loaded only when there is a file to read: most
 * repositories have none, and a run then never loads the parser); every problem is reported with
 * its file and line.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentDefinition } from './definition.js';

const AGENTS_DIR = '.gemini/agents';
const MAX_FILE_BYTES = 256 * 1024;

export interface AgentFileProblem {
  file: string;
  line: number;
  message: string;
}

export const formatProblem = (p: AgentFileProblem): string => `${p.file}:${p.line}: ${p.message}`;

/**
 * Every `.gemini/agents/*.md` under `root` (names starting with `_` are skipped, as Gemini CLI
 * does; symbolic links and oversized files are refused). A missing folder means no user agents.
 */
export async function readAgentFiles(
  root: string,
): Promise<{ agents: AgentDefinition[]; problems: AgentFileProblem[] }> {
  const dir = join(root, AGENTS_DIR);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.md') && !n.startsWith('_')).sort();
  } catch {
    return { agents: [], problems: [] };
  }
  if (names.length === 0) return { agents: [], problems: [] };
  const { parseAgentFile } = await import('./parse-agent-file.js');
  const agents: AgentDefinition[] = [];
  const problems: AgentFileProblem[] = [];
  for (const n of names) {
    const file = `${AGENTS_DIR}/${n}`;
    const st = await lstat(join(dir, n));
    if (!st.isFile()) {
      if (st.isSymbolicLink())
        problems.push({ file, line: 1, message: 'is a symbolic link; agent files must be regular files' });
      continue;
    }
    if (st.size > MAX_FILE_BYTES) {
      problems.push({
        file,
        line: 1,
        message: `is ${st.size} bytes; an agent file may have at most ${MAX_FILE_BYTES}`,
      });
      continue;
    }
    const parsed = parseAgentFile(file, await readFile(join(dir, n), 'utf8'));
    if (parsed.ok) agents.push(parsed.agent);
    else problems.push(...parsed.problems);
  }
  return { agents, problems };
}
