/**
 * The parts of Gemini CLI's settings that steer the loop and its sub-agents, from the run's merged
 * trusted settings (run-settings.ts): `model.skipNextSpeakerCheck`, `model.maxSessionTurns` and
 * `agents.overrides.<name>` (`enabled`, `modelConfig.model`, `runConfig.maxTurns`,
 * `runConfig.maxTimeMinutes`). Context file names are read by memory.ts. Never throws: a broken
 * value is a warning and is left out.
 */

export interface AgentOverride {
  enabled?: boolean;
  model?: string;
  maxTurns?: number;
  maxTimeMinutes?: number;
}

export interface LoopSettings {
  /** Gemini CLI's `model.skipNextSpeakerCheck`; undefined when the file does not set it. */
  skipNextSpeakerCheck?: boolean;
  /** Gemini CLI's `model.maxSessionTurns`: model turns of the session; undefined when unset or -1 (unlimited). */
  maxSessionTurns?: number;
  /** `agents.overrides`, by agent name. */
  agentOverrides: Record<string, AgentOverride>;
  warnings: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the loop's settings from a settings value; `label` names it in warnings. */
export function parseLoopSettings(json: unknown, label = 'settings'): LoopSettings {
  const out: LoopSettings = { agentOverrides: {}, warnings: [] };
  if (!isObj(json)) return out;
  const skip = isObj(json.model) ? json.model.skipNextSpeakerCheck : undefined;
  if (typeof skip === 'boolean') out.skipNextSpeakerCheck = skip;
  else if (skip !== undefined)
    out.warnings.push(
      `${label} model.skipNextSpeakerCheck: expected true or false, got ${JSON.stringify(skip)}; ignored`,
    );
  const turns = isObj(json.model) ? json.model.maxSessionTurns : undefined;
  if (typeof turns === 'number' && Number.isInteger(turns) && turns > 0) out.maxSessionTurns = turns;
  else if (turns !== undefined && turns !== -1)
    out.warnings.push(
      `${label} model.maxSessionTurns: expected a positive whole number or -1 (unlimited), got ${JSON.stringify(turns)}; ignored`,
    );
  const overrides = isObj(json.agents) ? json.agents.overrides : undefined;
  if (overrides === undefined) return out;
  if (!isObj(overrides)) {
    out.warnings.push(`${label} agents.overrides: expected an object of agent names; ignored`);
    return out;
  }
  for (const [name, raw] of Object.entries(overrides)) {
    const where = `${label} agents.overrides.${name}`;
    if (!isObj(raw)) {
      out.warnings.push(`${where}: expected an object; ignored`);
      continue;
    }
    out.agentOverrides[name] = parseOverride(raw, where, out.warnings);
  }
  return out;
}

function parseOverride(raw: Obj, where: string, warnings: string[]): AgentOverride {
  const o: AgentOverride = {};
  if (typeof raw.enabled === 'boolean') o.enabled = raw.enabled;
  else if (raw.enabled !== undefined) warnings.push(`${where}.enabled: expected true or false; ignored`);
  const model = isObj(raw.modelConfig) ? raw.modelConfig.model : undefined;
  if (typeof model === 'string' && model.trim()) o.model = model.trim();
  else if (model !== undefined) warnings.push(`${where}.modelConfig.model: expected a model name; ignored`);
  const run = isObj(raw.runConfig) ? raw.runConfig : {};
  for (const key of ['maxTurns', 'maxTimeMinutes'] as const) {
    const v = run[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) o[key] = v;
    else if (v !== undefined) warnings.push(`${where}.runConfig.${key}: expected a positive whole number; ignored`);
  }
  return o;
}
