import { join } from 'node:path';
/**
 * Sub-agent sessions for tests: a real git work tree, the real policy engine with the shipped
 * rules, the real tools and scheduler, the real @google/genai SDK against the loopback fake Gemini,
 * and agents/'s createSubagents passed in as a face does.
 */
import { createSubagents } from '../../src/agents/create-subagents.js';
import { prepareAgent, type AgentOptions } from '../../src/compose/prepare-agent.js';
import type { LoopEvent } from '../../src/core/events.js';
import type { ApprovalMode } from '../../src/policy/types.js';
import { createDeferChannel } from '../../src/scheduler/channels.js';
import { fakeClock } from '../core/helpers.js';
import { startFakeGemini, type FakeGemini, type FakeReply } from '../support/fake-gemini.js';
import { createRepo } from '../support/git-repo.js';
import { readSettingsLayers, runSettingsOf } from '../../src/context/run-settings.js';

const MODEL = 'gemini-2.5-flash';

export interface Session {
  dir: string;
  fake: FakeGemini;
  agent: Awaited<ReturnType<typeof prepareAgent>>;
  events: LoopEvent[];
  emit: (e: LoopEvent) => void;
  /** The events of sub-agents, unwrapped, with the call they nest under. */
  nested(): Array<{ parentId: string; agent: string; event: LoopEvent }>;
}

export interface SessionOptions {
  files?: Record<string, string>;
  script: FakeReply[];
  /** User-tier rules (inline TOML). */
  policy?: string;
  mode?: ApprovalMode;
  /** Per group: each given group's fields replace the defaults' (secrets: the whole list). */
  over?: AgentOverrides;
}

type AgentOverrides = { [K in Exclude<keyof AgentOptions, 'secrets'>]?: Partial<NonNullable<AgentOptions[K]>> } & {
  secrets?: string[];
};

const open: FakeGemini[] = [];

/** Close every fake server the tests of a file opened (call from afterEach). */
export async function closeSessions(): Promise<void> {
  await Promise.all(open.splice(0).map((f) => f.close()));
}

/** The agent over a work tree, as a run of the action would prepare it (a fresh one per process). */
export async function prepareFor(
  dir: string,
  baseUrl: string,
  o: Pick<SessionOptions, 'policy' | 'mode' | 'over'> = {},
) {
  const over = o.over ?? {};
  // The repository's .gemini/settings.json, read as the faces read it (the Action's trusted commit).
  const { layers } = await readSettingsLayers([
    { path: join(dir, '.gemini', 'settings.json'), label: '.gemini/settings.json', origin: 'repository' },
  ]);
  return prepareAgent({
    settings: runSettingsOf(layers),
    model: { name: MODEL, apiKey: 'test-key', baseUrl, ...over.model },
    workspace: { root: dir, memoryRoot: dir, ...over.workspace },
    policy: {
      context: 'action',
      mode: o.mode ?? 'default',
      user: o.policy ? [{ inline: o.policy, label: 'test policy' }] : [],
      ...over.policy,
    },
    task: { command: 'prompt', ...over.task },
    tools: { subagents: createSubagents, ...over.tools },
    limits: { ...over.limits },
    secrets: over.secrets ?? [],
    io: { channel: createDeferChannel(), clock: fakeClock(), ...over.io },
    ...(over.commands && { commands: over.commands }),
    ...(over.extensions && { extensions: over.extensions }),
  });
}

/** Collects a run's events; `nested()` unwraps the sub-agents' ones. */
export function eventLog() {
  const events: LoopEvent[] = [];
  return {
    events,
    emit: (e: LoopEvent) => void events.push(e),
    nested: () =>
      events.flatMap((e) => (e.type === 'subagent' ? [{ parentId: e.parentId, agent: e.agent, event: e.event }] : [])),
  };
}

export async function openSession(o: SessionOptions): Promise<Session> {
  const { dir } = createRepo(o.files ?? { 'README.md': '# demo\n' });
  const fake = await startFakeGemini(o.script);
  open.push(fake);
  const agent = await prepareFor(dir, fake.baseUrl, o);
  const log = eventLog();
  return { dir, fake, agent, ...log };
}

/** The system instruction text of a recorded request. */
export const systemOf = (r: FakeGemini['requests'][number]): string =>
  (r.body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('');

/** The tool names a recorded request declared. */
export const toolNamesOf = (r: FakeGemini['requests'][number]): string[] =>
  (r.body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));

/** Every functionResponse of a recorded request, in order. */
export function responsesOf(
  r: FakeGemini['requests'][number],
): Array<{ name: string; id?: string; response: Record<string, unknown> }> {
  return r.body.contents.flatMap((c) =>
    c.parts.flatMap((p) =>
      p.functionResponse
        ? [p.functionResponse as { name: string; id?: string; response: Record<string, unknown> }]
        : [],
    ),
  );
}
