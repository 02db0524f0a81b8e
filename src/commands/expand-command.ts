/**
 * A custom command and what was typed after its name, turned into the prompt the model gets, with
 * Gemini CLI's semantics:
 *
 * - `@{path}`: the content of a file (or of every file under a folder) of the workspace, read
 *   through the file tools' confined opens (a path or a symlink that leads out of the workspace, or
 *   into `.git/`, is refused: the placeholder stays and a warning says why).
 * - `!{command}`: the command's output. `{{args}}` inside it is the arguments as one shell word.
 *   Each command is first decided by the run's policy as a `run_shell_command` call, on the same
 *   decision path the scheduler takes, and runs in the run's sandbox through run_shell_command's
 *   own runner. If policy denies any of them, or would ask a person, none runs and the command
 *   fails, naming the command and the rule (Gemini CLI asks at its terminal; a run has nobody to ask).
 * - `{{args}}` anywhere else: the arguments as typed. A template without `{{args}}` gets the whole
 *   invocation (`/name args`) appended after a blank line, when there are arguments.
 *
 * The arguments are the requester's text: they fill `{{args}}` and nothing else. The template, the
 * files it names and the commands it runs come from the command file alone.
 */
import { AgentError, messageOf } from '../common/errors.js';
import { redactSecrets } from '../common/redact.js';
import type { ApprovalMode, PolicyEngine, PolicyVerdict } from '../policy/types.js';
import { decideCall, policyQueryOf } from '../scheduler/call-hooks.js';
import { runShellCommandTool, runShellToEnd } from '../tools/builtin/run-shell-command.js';
import type { ToolEnv } from '../tools/define-tool.js';
import type { CustomCommand } from './command-file.js';
import { readInjectedPath } from './inject-file.js';
import { ARGS_PLACEHOLDER, parseTemplate, shellEscape, type Invocation, type Piece } from './template.js';

export interface ExpandDeps {
  /** The run's tool environment: the workspace `@{}` is confined to, the sandbox `!{}` runs in. */
  env: ToolEnv;
  policy: PolicyEngine;
  mode: ApprovalMode;
  /** run_shell_command is one of the run's tools (not excluded): else no `!{}` runs. */
  shellAvailable: boolean;
  signal: AbortSignal;
  /** How a rule's file is named in the refusal (the Action shortens runner paths); default: as loaded. */
  showRuleSource?: (source: string) => string;
}

export interface Expanded {
  text: string;
  /** `@{}` that could not be injected (the placeholder stayed), for the face to show. */
  warnings: string[];
  /** Each `!{}` that ran, with its exit code. */
  ran: Array<{ command: string; exitCode: number | null }>;
}

export async function expandCommand(cmd: CustomCommand, inv: Invocation, deps: ExpandDeps): Promise<Expanded> {
  const pieces = parseTemplate(cmd.prompt, cmd.label);
  const escaped = shellEscape(inv.args);
  const shells = pieces.flatMap((p) =>
    p.kind === 'shell' && p.command !== '' ? [p.command.replaceAll(ARGS_PLACEHOLDER, escaped)] : [],
  );
  await assertShellAllowed(cmd, shells, deps);

  const warnings: string[] = [];
  const ran: Expanded['ran'] = [];
  let text = '';
  for (const p of pieces) text += await render(p, { cmd, inv, escaped, deps, warnings, ran });
  if (!cmd.prompt.includes(ARGS_PLACEHOLDER) && inv.args !== '') text = `${text}\n\n${inv.raw}`;
  return { text, warnings, ran };
}

interface RenderState {
  cmd: CustomCommand;
  inv: Invocation;
  escaped: string;
  deps: ExpandDeps;
  warnings: string[];
  ran: Expanded['ran'];
}

async function render(p: Piece, s: RenderState): Promise<string> {
  if (p.kind === 'text') return p.text.replaceAll(ARGS_PLACEHOLDER, s.inv.args);
  if (p.kind === 'file') {
    try {
      return await readInjectedPath(s.deps.env.root, p.path);
    } catch (e) {
      s.warnings.push(`/${s.cmd.name}: ${p.raw} was not injected: ${messageOf(e)}`);
      return p.raw;
    }
  }
  if (p.command === '') return '';
  const command = p.command.replaceAll(ARGS_PLACEHOLDER, s.escaped);
  const out = await runInjected(command, s.deps);
  s.ran.push({ command, exitCode: out.exitCode });
  return out.text;
}

/** Every `!{}` is decided before any runs: one that is denied, or would be asked about, stops the command. */
async function assertShellAllowed(cmd: CustomCommand, commands: readonly string[], deps: ExpandDeps): Promise<void> {
  for (const command of commands) {
    if (!deps.shellAvailable)
      throw refusal(cmd, command, 'run_shell_command is not one of the tools of this run (it is excluded)');
    const verdict = await decideShell(command, deps);
    if (verdict.decision === 'allow') continue;
    const what = verdict.decision === 'deny' ? 'policy denies it' : 'policy would ask a person first';
    const rule = ruleOf(verdict, deps.showRuleSource ?? ((x) => x));
    throw refusal(cmd, command, `${what} (${rule}): ${verdict.rule?.denyMessage || verdict.reason}`);
  }
}

/** The scheduler's decision path for a `run_shell_command` call with this command. */
async function decideShell(command: string, deps: ExpandDeps): Promise<PolicyVerdict> {
  const args = { command };
  let prepared;
  try {
    prepared = await runShellCommandTool.prepare(args, deps.env);
  } catch (e) {
    return { decision: 'deny', rule: null, reason: messageOf(e) };
  }
  return decideCall(deps.policy, [policyQueryOf(runShellCommandTool.name, args, prepared)], {
    mode: deps.mode,
    signal: deps.signal,
  });
}

const ruleOf = (v: PolicyVerdict, show: (source: string) => string): string =>
  v.rule
    ? `rule ${show(v.rule.source)}${v.rule.line > 0 ? `:${v.rule.line}` : ''}, tier ${v.rule.tier}`
    : 'no rule matched';

function refusal(cmd: CustomCommand, command: string, why: string): AgentError {
  return new AgentError(
    'config',
    `custom command /${cmd.name} (${cmd.label}) was not run: its !{${command}} ${why}. A command's !{...} runs only where the policy allows that run_shell_command call; nothing of it ran.`,
  );
}

/** One `!{}`'s output as Gemini CLI injects it: the output, then a status line when it did not succeed. */
async function runInjected(command: string, deps: ExpandDeps): Promise<{ text: string; exitCode: number | null }> {
  const { env } = deps;
  const ran = await runShellToEnd(env, command, { cwd: env.root, timeoutMs: env.shellTimeoutMs, signal: deps.signal });
  if ('error' in ran) throw new AgentError('config', `!{${command}} could not run: ${ran.error.forModel}`);
  const r = ran.result;
  if (r.startError) throw new AgentError('config', `!{${command}} did not start: ${r.startError}`);
  const shown = redactSecrets(command, env.secrets);
  let text = redactSecrets(r.output, env.secrets);
  if (r.aborted || r.timedOut) text += `\n[Shell command '${shown}' aborted]`;
  else if (r.exitCode !== 0 && r.exitCode !== null)
    text += `\n[Shell command '${shown}' exited with code ${r.exitCode}]`;
  else if (r.signal !== null) text += `\n[Shell command '${shown}' terminated by signal ${r.signal}]`;
  return { text, exitCode: r.exitCode };
}
