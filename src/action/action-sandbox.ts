/**
 * The Action's sandbox: the `sandbox` and `sandbox-network` inputs, the AppArmor remedy (only
 * here, on a runner: a disposable VM whose passwordless sudo is there for steps like this one),
 * and what the log and the progress comment say about it.
 */
import { createAppArmorRemedy, type Remedy } from '../sandbox/remedy.js';
import { describeBounds } from '../sandbox/bounds.js';
import { createSandbox } from '../sandbox/sandbox.js';
import type { Probe } from '../sandbox/probe.js';
import type { Sandbox, SandboxStatus } from '../sandbox/types.js';
import type { ActionSettings } from './inputs.js';
import type { Log } from './run-context.js';
import { describeCommandPolicy, describeSandboxRun } from './sandbox-text.js';

export interface ActionSandbox {
  sandbox: Sandbox;
  /** What the probe found (once per run): the approval question says where an approved command runs. */
  status: SandboxStatus;
  /** The job summary's line on how commands ran, whatever the status. */
  summary: string;
  /** For the progress comment when commands are refused or unconfined. */
  note?: string;
}

export interface ActionSandboxOptions {
  settings: Pick<ActionSettings, 'sandbox' | 'sandboxNetwork' | 'sandboxLimits'>;
  log: Log;
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Tests inject a probe result (an AppArmor refusal) and a remedy; production runs bwrap and sudo. */
  probe?: Probe;
  remedy?: Remedy;
}

/** The sandbox, made at once, and its probe, running: `ready` logs and describes what it found. */
export interface StartedActionSandbox {
  /** For the agent: every command (and MCP server, hook) it spawns waits for the probe on its own. */
  sandbox: Sandbox;
  /** What the probe found, logged; rejects when the probe itself failed. The same answer each call. */
  ready(): Promise<ActionSandbox>;
}

/**
 * Starts the probe (bwrap twice; on a runner that refuses it, the AppArmor remedy and bwrap again)
 * without waiting for it, so a run reads its thread and prepares its agent meanwhile. The caller
 * awaits `ready` before the agent starts: no tool runs, and no hook or session starts, before the
 * probe's answer is known, and a probe that fails fails the run there.
 */
export function startActionSandbox(o: ActionSandboxOptions): StartedActionSandbox {
  const sandbox = createSandbox({
    mode: o.settings.sandbox,
    network: o.settings.sandboxNetwork,
    bounds: o.settings.sandboxLimits,
    hostEnv: o.hostEnv,
    probe: o.probe,
    remedy: o.remedy ?? createAppArmorRemedy(),
  });
  const status = sandbox.status();
  status.catch(() => undefined); // awaited by ready(); a run that fails before must not leave it unhandled
  let reported: Promise<ActionSandbox> | undefined;
  return { sandbox, ready: () => (reported ??= status.then((s) => reportActionSandbox(sandbox, s, o.log))) };
}

export async function prepareActionSandbox(o: ActionSandboxOptions): Promise<ActionSandbox> {
  return startActionSandbox(o).ready();
}

function reportActionSandbox(sandbox: Sandbox, s: SandboxStatus, log: Log): ActionSandbox {
  const view = { mode: sandbox.mode, status: s };
  const policy = describeCommandPolicy(view);
  const known = { sandbox, status: s, summary: `${describeSandboxRun(view)}${policy ? `\n${policy}` : ''}` };
  switch (s.kind) {
    case 'sandboxed':
      if (s.remedy) log.notice(`sandbox: ${s.remedy}`);
      log.info(
        `sandbox: bubblewrap ${s.version} (${s.bwrap}); network ${s.network ? 'allowed' : 'off'}${s.bounds ? `; bounds: ${describeBounds(s.bounds)}` : ''}`,
      );
      if (s.rlimitsMissing) log.warning(`sandbox: ${s.rlimitsMissing}`);
      return known;
    case 'unconfined': {
      log.warning(`sandbox: ${s.warning}`);
      return { ...known, note: `⚠️ Commands ran without the OS sandbox: ${s.warning}` };
    }
    case 'refused': {
      const text = `shell commands are refused: the \`sandbox\` input is \`required\` and the sandbox is unavailable: ${s.reason}. To fix: ${s.fix}; or set the \`sandbox\` input to \`auto\` to run commands unconfined (not recommended)`;
      log.warning(`sandbox: ${text}`);
      return { ...known, note: `⚠️ Sandbox: ${text}.` };
    }
  }
}
