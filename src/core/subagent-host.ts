/**
 * What a sub-agent plug (built by agents/, passed to the composition root by the face) gets from
 * the run it serves. Declared here, below agents/, so the plug imports nothing above it.
 */
import type { AgentOverride } from '../context/settings.js';
import type { ModelClient } from '../model/client.js';
import type { PolicyEngine } from '../policy/types.js';
import type { ApprovalChannel } from '../scheduler/types.js';
import type { Tool, ToolEnv } from '../tools/define-tool.js';
import type { Emit } from './events.js';
import type { Clock, LoopLimits } from './loop.js';
import type { RunState } from './run-state.js';

export interface SubagentHost {
  /** The parent's tools; a child gets a subset of them (never invoke_agent). */
  tools: readonly Tool[];
  policy: PolicyEngine;
  channel: ApprovalChannel;
  env: ToolEnv;
  model: ModelClient;
  /** Trusted configuration: `.gemini/agents/*.md` are read here; none for an untrusted project. */
  configRoot?: string;
  /** The project memory text; a child's system prompt carries it too. */
  memory: string;
  limits: LoopLimits;
  clock?: Clock;
  /** `agents.overrides` from the trusted `.gemini/settings.json`. */
  agentOverrides: Readonly<Record<string, AgentOverride>>;
  /** The parent run in progress: its state (model, mode, spent budget) and its event sink. */
  current(): ParentRun;
}

export interface ParentRun {
  state: RunState;
  emit: Emit;
}

/** What the plug adds to the run: its tools (invoke_agent), and the agents to list in the prompt. */
interface Subagents {
  tools: Tool[];
  agents: ReadonlyArray<{ name: string; description: string }>;
  warnings: string[];
}

export type SubagentFactory = (host: SubagentHost) => Promise<Subagents>;
