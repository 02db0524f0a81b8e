/**
 * The policy bench's rule set: 500 rules of five kinds (a tool name, shell prefixes, an argsPattern,
 * an MCP server wildcard with modes, a commandRegex) and a catch-all, as TOML that both our engine
 * and Gemini CLI's load without complaint (its ReDoS check refuses `( [a-z]+)?$`, so the regex rules
 * use a plain `[a-z]+`). The queries are the same for both engines.
 */
export function rules500Toml(): string {
  const out: string[] = [];
  const decisions = ['allow', 'deny', 'ask_user'];
  for (let i = 0; i < 500; i++) {
    const d = decisions[i % 3];
    const p = i % 1000;
    switch (i % 5) {
      case 0:
        out.push(`[[rule]]\ntoolName = "tool_${i}"\ndecision = "${d}"\npriority = ${p}\n`);
        break;
      case 1:
        out.push(
          `[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["cmd${i} sub", "tool${i}"]\ndecision = "${d}"\npriority = ${p}\n`,
        );
        break;
      case 2:
        out.push(
          `[[rule]]\ntoolName = "write_file"\nargsPattern = '\\x00"file_path":"src/mod${i}/[^"]*"\\x00'\ndecision = "${d}"\npriority = ${p}\n`,
        );
        break;
      case 3:
        out.push(
          `[[rule]]\ntoolName = "mcp_srv${i}_*"\ndecision = "${d}"\npriority = ${p}\nmodes = ["default", "autoEdit"]\n`,
        );
        break;
      default:
        out.push(
          `[[rule]]\ntoolName = "run_shell_command"\ncommandRegex = "make${i} [a-z]+"\ndecision = "${d}"\npriority = ${p}\n`,
        );
    }
  }
  out.push('[[rule]]\ntoolName = "*"\ndecision = "ask_user"\npriority = 0\n');
  return out.join('\n');
}

export interface BenchQuery {
  toolName: string;
  args: Record<string, unknown>;
  mcpServer?: string;
}

/** Plain calls: one no rule names (the catch-all decides), one argsPattern hit, one tool-name hit, one MCP call. */
export const PLAIN_QUERIES: readonly BenchQuery[] = [
  { toolName: 'read_file', args: { file_path: 'src/a.ts' } },
  { toolName: 'write_file', args: { file_path: 'src/mod402/x.ts', content: 'x'.repeat(2000) } },
  { toolName: 'tool_250', args: {} },
  { toolName: 'search', mcpServer: 'srv8', args: { q: 'x' } },
];

/** Compound shell commands: pipes, lists, a substitution, `bash -c` with a redirection. */
export const SHELL_COMMANDS: readonly string[] = [
  'npm test && git status | head -5',
  'cmd251 sub --x && tool256 y | grep z',
  'git status; git diff HEAD -- src/ && echo "$(git log -n 3 --format=%h)"',
  "bash -c 'make4 build && ls -la' > out.txt 2>&1",
];

export const shellQuery = (command: string): BenchQuery => ({ toolName: 'run_shell_command', args: { command } });
