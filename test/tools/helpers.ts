import type { PreparedCall, ToolEnv, ToolOutput } from '../../src/tools/define-tool.js';
import { createDefaultTools } from '../../src/tools/default-tools.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { createManualTimer } from '../support/manual-timer.js';

export function makeEnv(root: string, over: Partial<ToolEnv> = {}): ToolEnv {
  return {
    root,
    secrets: [],
    baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    shellTimeoutMs: 30_000,
    ...over,
  };
}

export const registry = createToolRegistry(createDefaultTools());

export async function prepare(env: ToolEnv, name: string, args: Record<string, unknown>): Promise<PreparedCall> {
  return registry.prepareCall(name, args, env);
}

/** Prepare and run with a live signal. */
export async function call(
  env: ToolEnv,
  name: string,
  args: Record<string, unknown>,
  signal = new AbortController().signal,
): Promise<ToolOutput> {
  const p = await prepare(env, name, args);
  return p.run({ signal });
}

/** The ToolFailure a prepare throws, as { code, message }. */
export async function refusal(
  env: ToolEnv,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: string; message: string }> {
  try {
    await prepare(env, name, args);
  } catch (e) {
    const f = e as { code?: string; message: string };
    if (!f.code) throw e;
    return { code: f.code, message: f.message };
  }
  throw new Error(`expected ${name} to refuse ${JSON.stringify(args)}`);
}

/**
 * Starts run_shell_command with timers the test fires (ToolEnv.shellTimer): `printed(text)` resolves
 * once the command's output holds `text`, the event after which a test fires the timeout.
 */
export async function startShellWithManualTimer(env: ToolEnv, command: string) {
  const timer = createManualTimer();
  const p = await prepare({ ...env, shellTimer: timer.start }, 'run_shell_command', { command });
  let output = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const running = p.run({
    signal: new AbortController().signal,
    onProgress: (chunk) => {
      output += chunk;
      for (const w of waiters.filter((x) => output.includes(x.text))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    },
  });
  const printed = (text: string) =>
    output.includes(text) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ text, resolve }));
  return { timer, running, printed };
}
