import type { TSchema } from 'typebox';

/**
 * A sub-agent: a child loop with its own chat, system prompt, tools and limits, which ends by
 * calling `complete_task`. Built-in ones are written in code; user ones come from
 * `.gemini/agents/*.md` in the trusted configuration.
 */
export interface AgentDefinition {
  /** A slug: lowercase letters, digits, `-` and `_`. Policies match it (`toolName = "<name>"`, `subagent = "<name>"`). */
  name: string;
  description: string;
  /** Tool names, or wildcards (`*`, `prefix*`); undefined: every tool of the parent but invoke_agent. */
  tools?: readonly string[];
  /** undefined: the parent's model. */
  model?: string;
  temperature?: number;
  maxTurns: number;
  timeoutMs: number;
  /** Tokens the child may spend (within what the run has left). */
  maxTotalTokens?: number;
  /** The child's own instructions: the Markdown body of a user agent. */
  systemPrompt: string;
  /** The child's first message, from the parent's `prompt`. */
  firstMessage(prompt: string): string;
  /** What complete_task takes: a `result` text, or a structured report under its own name. */
  output: AgentOutput;
  /** Where it was defined: `built-in`, or the file (relative to the configuration root). */
  source: string;
}

export type AgentOutput = { kind: 'text' } | { kind: 'report'; name: string; description: string; schema: TSchema };

/** Gemini CLI's defaults for a user agent: 30 turns, 10 minutes. */
export const DEFAULT_AGENT_MAX_TURNS = 30;
export const DEFAULT_AGENT_TIMEOUT_MINUTES = 10;

/** Gemini CLI's agent name rule. */
export const AGENT_NAME = /^[a-z0-9-_]+$/;
