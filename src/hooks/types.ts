/** The hooks layer's contract with the loop (core/) and the faces. Types only. */
import type { HookEvent } from './config.js';
import type { HookOutcome } from './run-hook.js';

/** One hook run, for the job summary and logs (Gemini CLI's stream-json has no hook events, so neither has ours). */
export interface HookRunEvent {
  type: 'hook';
  event: HookEvent;
  name: string;
  outcome: HookOutcome;
  exitCode: number | null;
  durationMs: number;
  /** Why it blocked, what went wrong, or its systemMessage. */
  message?: string;
}

/** Where the loop meets hooks. Every method is safe to call: a failing hook is a warning, never an exception. */
export interface LoopHooks {
  /** BeforeAgent, once per prompt: context to add to it, or a block (the prompt is not sent). */
  beforeAgent(prompt: string, signal: AbortSignal): Promise<{ context?: string; blocked?: string }>;
  /** AfterAgent, on the final reply: `retry` is a new prompt when a hook rejected the reply. */
  afterAgent(
    prompt: string,
    o: { response: string; retrying: boolean; signal: AbortSignal },
  ): Promise<{ retry?: string }>;
  /** PreCompress (trigger `auto`): advisory. */
  preCompress(signal: AbortSignal): Promise<void>;
  /** Set once any hook answered `continue: false`: the run ends with this reason. */
  stopReason(): string | undefined;
}
