/**
 * The parts of Gemini CLI's `.gemini/settings.json` that steer the loop and its sub-agents, read
 * from the trusted configuration root (the base commit's snapshot for pull requests):
 * `model.skipNextSpeakerCheck` and `agents.overrides.<name>` (`enabled`, `modelConfig.model`,
 * `runConfig.maxTurns`, `runConfig.maxTimeMinutes`). Context file names are read by memory.ts.
 * Never throws: a missing file is normal; a broken value is a warning and is left out.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../common/errors.js';
import { stripJsonComments } from './settings-file.js';

export interface AgentOverride {
  enabled?: boolean;
  model?: string;
  maxTurns?: number;
  maxTimeMinutes?: number;
}

export interface LoopSettings {
  /** Gemini CLI's `model.skipNextSpeakerCheck`; undefined when the file does not set it. */
  skipNextSpeakerCheck?: boolean;
  /** `agents.overrides`, by agent name. */
  agentOverrides: Record<string, AgentOverride>;
  warnings: string[];
}

const FILE = '.gemini/settings.json';
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the loop's settings from a parsed settings.json value. */
export function parseLoopSettings(json: unknown): LoopSettings {
  const out: LoopSettings = { agentOverrides: {}, warnings: [] };
  if (!isObj(json)) return out;
  const skip = isObj(json.model) ? json.model.skipNextSpeakerCheck : undefined;
  if (typeof skip === 'boolean') out.skipNextSpeakerCheck = skip;
  else if (skip !== undefined)
    out.warnings.push(
      `${FILE} model.skipNextSpeakerCheck: expected true or false, got ${JSON.stringify(skip)}; ignored`,
    );
  const overrides = isObj(json.agents) ? json.agents.overrides : undefined;
  if (overrides === undefined) return out;
  if (!isObj(overrides)) {
    out.warnings.push(`${FILE} agents.overrides: expected an object of agent names; ignored`);
    return out;
  }
  for (const [name, raw] of Object.entries(overrides)) {
    const where = `${FILE} agents.overrides.${name}`;
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

/** Reads `<root>/.gemini/settings.json` (JSON with comments, as Gemini CLI accepts). */
export async function readLoopSettings(root: string): Promise<LoopSettings> {
  let raw: string;
  try {
    raw = await readFile(join(root, FILE), 'utf8');
  } catch {
    return { agentOverrides: {}, warnings: [] };
  }
  try {
    return parseLoopSettings(JSON.parse(stripJsonComments(raw)));
  } catch (e) {
    return {
      agentOverrides: {},
      warnings: [`${FILE}: not valid JSON (${messageOf(e)}); the loop and agent settings are left at their defaults`],
    };
  }
}
