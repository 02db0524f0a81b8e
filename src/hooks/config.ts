/**
 * `hooks` as Gemini CLI's settings.json writes them (its hooks reference is the spec): each event
 * an array of `{ matcher, sequential, hooks: [{ type: "command", command, name, timeout,
 * description }] }`, plus `hooks.disabled` (names to leave out). Pure: checked once into plain
 * records, each problem named by its path. Only `command` hooks exist outside Gemini CLI's own
 * process; other types are reported and left out.
 */

const HOOK_EVENTS = [
  'SessionStart',
  'SessionEnd',
  'BeforeAgent',
  'AfterAgent',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
  'BeforeTool',
  'AfterTool',
  'PreCompress',
  'Notification',
] as const;

export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Events whose matcher is a regular expression over the tool's name; the others match a trigger exactly. */
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set(['BeforeTool', 'AfterTool']);

/** Gemini CLI's default, in ms. */
const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Fields of the `hooks` object that are settings, not events (Gemini CLI's HOOKS_CONFIG_FIELDS). */
const CONFIG_FIELDS = new Set(['enabled', 'disabled', 'notifications']);

export interface HookCommand {
  /** `name`, else the command (Gemini CLI's display name). */
  name: string;
  command: string;
  timeoutMs: number;
  /** Extra variables for the command's environment (as written; Gemini CLI passes `env` too). */
  env: Record<string, string>;
  /** For messages: `.gemini/settings.json`. */
  source: string;
}

export interface HookGroup {
  event: HookEvent;
  matcher?: string;
  sequential: boolean;
  hooks: HookCommand[];
}

export interface HookConfigProblem {
  path: string;
  message: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: the `hooks` value of one settings file. Disabled hooks (by name) are left out. */
export function parseHooks(value: unknown, source: string): { groups: HookGroup[]; problems: HookConfigProblem[] } {
  const problems: HookConfigProblem[] = [];
  const groups: HookGroup[] = [];
  if (value === undefined || value === null) return { groups, problems };
  if (!isRecord(value))
    return { groups, problems: [{ path: 'hooks', message: 'must be an object of event names to hook definitions' }] };
  if (value.enabled === false) return { groups, problems };
  const disabled = Array.isArray(value.disabled)
    ? value.disabled.filter((x): x is string => typeof x === 'string')
    : [];
  for (const [event, defs] of Object.entries(value)) {
    if (CONFIG_FIELDS.has(event)) continue;
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      problems.push({
        path: `hooks.${event}`,
        message: `is not a hook event (one of ${HOOK_EVENTS.join(', ')}); skipped`,
      });
      continue;
    }
    if (!Array.isArray(defs)) {
      problems.push({ path: `hooks.${event}`, message: 'must be an array of hook definitions; skipped' });
      continue;
    }
    defs.forEach((def, i) => {
      const group = parseGroup(def, `hooks.${event}[${i}]`, { event: event as HookEvent, source, problems });
      if (!group) return;
      group.hooks = group.hooks.filter((h) => !disabled.includes(h.name));
      if (group.hooks.length) groups.push(group);
    });
  }
  return { groups, problems };
}

function parseGroup(
  def: unknown,
  at: string,
  { event, source, problems }: { event: HookEvent; source: string; problems: HookConfigProblem[] },
): HookGroup | undefined {
  if (!isRecord(def) || !Array.isArray(def.hooks)) {
    problems.push({ path: at, message: 'must be an object with a `hooks` array; skipped' });
    return undefined;
  }
  if (def.matcher !== undefined && typeof def.matcher !== 'string')
    problems.push({ path: `${at}.matcher`, message: 'must be a string; ignored (the hooks run for every occurrence)' });
  if (def.sequential !== undefined && typeof def.sequential !== 'boolean')
    problems.push({ path: `${at}.sequential`, message: 'must be true or false; ignored' });
  const hooks: HookCommand[] = [];
  def.hooks.forEach((h: unknown, j: number) => {
    const path = `${at}.hooks[${j}]`;
    if (!isRecord(h)) return void problems.push({ path, message: 'must be an object; skipped' });
    if (h.type !== 'command')
      return void problems.push({
        path: `${path}.type`,
        message: `${JSON.stringify(h.type)}: only "command" hooks are supported; skipped`,
      });
    if (typeof h.command !== 'string' || h.command.trim() === '')
      return void problems.push({ path: `${path}.command`, message: 'must be a non-empty string; skipped' });
    let timeoutMs = DEFAULT_HOOK_TIMEOUT_MS;
    if (h.timeout !== undefined) {
      if (typeof h.timeout === 'number' && Number.isFinite(h.timeout) && h.timeout > 0)
        timeoutMs = Math.round(h.timeout);
      else
        problems.push({
          path: `${path}.timeout`,
          message: `must be a number of milliseconds above 0; the default ${DEFAULT_HOOK_TIMEOUT_MS} ms applies`,
        });
    }
    const env: Record<string, string> = {};
    if (isRecord(h.env)) for (const [k, v] of Object.entries(h.env)) if (typeof v === 'string') env[k] = v;
    const name = typeof h.name === 'string' && h.name.trim() ? h.name.trim() : h.command;
    hooks.push({ name, command: h.command, timeoutMs, env, source });
  });
  return {
    event,
    ...(typeof def.matcher === 'string' && { matcher: def.matcher }),
    sequential: def.sequential === true,
    hooks,
  };
}

/**
 * Pure: the hooks to run for one occurrence of an event, as Gemini CLI plans them: groups whose
 * matcher fits (empty or `*`: all; tool events: a regular expression over the tool's name, or the
 * exact name when the expression does not compile; other events: the exact trigger), identical
 * hooks once, and in sequence when any matching group asks for it.
 */
export function planHooks(
  groups: readonly HookGroup[],
  event: HookEvent,
  subject?: string,
): { hooks: HookCommand[]; sequential: boolean } {
  const matching = groups.filter((g) => g.event === event && matches(g, subject));
  const seen = new Set<string>();
  const hooks: HookCommand[] = [];
  for (const g of matching) {
    for (const h of g.hooks) {
      const key = `${h.name}:${h.command}`;
      if (seen.has(key)) continue;
      seen.add(key);
      hooks.push(h);
    }
  }
  return { hooks, sequential: matching.some((g) => g.sequential) };
}

function matches(g: HookGroup, subject: string | undefined): boolean {
  const m = g.matcher?.trim();
  if (!m || m === '*' || subject === undefined) return true;
  if (!TOOL_EVENTS.has(g.event)) return m === subject;
  try {
    return new RegExp(m).test(subject);
  } catch {
    return m === subject;
  }
}
