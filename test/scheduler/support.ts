import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { Type } from 'typebox';
import type {
  AddedRule,
  ApprovalMode,
  Decision,
  PolicyEngine,
  PolicyQuery,
  PolicyVerdict,
  RuleRef,
} from '../../src/policy/types.js';
import { createScheduler, type SchedulerOptions } from '../../src/scheduler/scheduler.js';
import type { ApprovalChannel, SchedulerEvent } from '../../src/scheduler/types.js';
import { defineTool, ToolFailure, type Tool, type ToolEnv } from '../../src/tools/define-tool.js';
import { createToolRegistry } from '../../src/tools/registry.js';

/**
 * Small real tools for scheduler tests: they do real file I/O under a temp workspace and record
 * when they start and end (as an ordered log, not as times), so overlap is shown, never timed.
 */

/** Resolves once `parties` callers have arrived; fails (instead of hanging) if they never do. */
export function createBarrier(parties: number, guardMs = 5_000) {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return {
    async arrive(): Promise<void> {
      arrived += 1;
      if (arrived >= parties) release();
      let timer: NodeJS.Timeout | undefined;
      const guard = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`barrier: only ${arrived} of ${parties} calls ever started`)),
          guardMs,
        );
      });
      try {
        await Promise.race([all, guard]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type Barrier = ReturnType<typeof createBarrier>;

function inside(root: string, path: string): string {
  const abs = resolve(root, path);
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new ToolFailure('outside_workspace', `${path} is outside the workspace`);
  return abs;
}

const tick = () => new Promise<void>((r) => setTimeout(r, 5));

export function createTestKit() {
  /** "start:<label>" / "end:<label>" in the order they happened. */
  const log: string[] = [];
  const barriers = new Map<string, Barrier>();
  /** label -> a promise the call waits for before it ends (lets a test make a later call finish first). */
  const gates = new Map<string, Promise<unknown>>();
  const ends = new Map<string, () => void>();
  /** Resolves when the call labelled `label` ends; rejects after a guard instead of hanging a test. */
  const ended = (label: string, guardMs = 5_000) =>
    new Promise<void>((resolveEnd, reject) => {
      const timer = setTimeout(() => reject(new Error(`gate: ${label} never ended`)), guardMs);
      ends.set(label, () => {
        clearTimeout(timer);
        resolveEnd();
      });
    });

  const noteRead = defineTool({
    name: 'note_read',
    kind: 'read',
    description: 'Read a note file.',
    params: Type.Object(
      { path: Type.String(), barrier: Type.Optional(Type.String()), label: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    async prepare(args, env) {
      const abs = inside(env.root, args.path);
      if (!existsSync(abs)) throw new ToolFailure('not_found', `no note ${args.path}`);
      const label = args.label ?? args.path;
      return {
        title: `read ${args.path}`,
        paths: [args.path],
        policyArgs: { path: args.path },
        run: async () => {
          log.push(`start:${label}`);
          if (args.barrier) await barriers.get(args.barrier)!.arrive();
          await gates.get(label);
          const text = await readFile(abs, 'utf8');
          log.push(`end:${label}`);
          ends.get(label)?.();
          return { forModel: text, forHuman: `read ${args.path}` };
        },
      };
    },
  });

  const noteWrite = defineTool({
    name: 'note_write',
    kind: 'edit',
    description: 'Write a note file.',
    params: Type.Object({ path: Type.String(), content: Type.String() }, { additionalProperties: false }),
    async prepare(args, env) {
      const abs = inside(env.root, args.path);
      const before = existsSync(abs) ? await readFile(abs, 'utf8') : undefined;
      return {
        title: `${before === undefined ? 'create' : 'overwrite'} ${args.path}`,
        paths: [args.path],
        policyArgs: { path: args.path, content: args.content },
        preview: `--- ${args.path}\n-${before ?? ''}\n+${args.content}\n`,
        run: async () => {
          log.push(`start:${args.path}`);
          await tick(); // room for another call to start, were the scheduler to let it
          await writeFile(abs, args.content);
          await tick();
          log.push(`end:${args.path}`);
          return { forModel: `wrote ${args.path}`, forHuman: `wrote ${args.path}` };
        },
      };
    },
  });

  const askUser = defineTool({
    name: 'ask_user',
    kind: 'other',
    description: 'Ask the maintainer a question.',
    params: Type.Object({ question: Type.String() }, { additionalProperties: false }),
    prepare: (args) => ({
      title: `ask: ${args.question}`,
      paths: [],
      policyArgs: { question: args.question },
      question: { question: args.question },
      run: async () => {
        throw new Error('ask_user never runs: its answer is its result');
      },
    }),
  });

  const breakRun = defineTool({
    name: 'break_run',
    kind: 'execute',
    description: 'Fail in a way that ends the run.',
    params: Type.Object({}, { additionalProperties: false }),
    prepare: () => ({
      title: 'break the run',
      paths: [],
      policyArgs: {},
      run: async () => {
        log.push('start:break_run');
        return { forModel: 'the sandbox is gone', error: { code: 'fatal', message: 'the sandbox is gone' } };
      },
    }),
  });

  const tools: Tool[] = [noteRead, noteWrite, askUser, breakRun] as Tool[];
  const registry = createToolRegistry(tools);
  return { log, barriers, gates, ended, tools, source: registry };
}

export type TestKit = ReturnType<typeof createTestKit>;

export function envFor(root: string): ToolEnv {
  return { root, secrets: [], baseEnv: {}, shellTimeoutMs: 10_000 };
}

/**
 * A policy engine that decides by tool name from a table (unknown names get `fallback`), and
 * remembers "always" approvals as allow rules. Enough for the scheduler; the real engine is tested in policy/.
 */
export function createTablePolicy(
  table: Record<string, Decision>,
  fallback: Decision = 'deny',
  denyMessages: Record<string, string> = {},
): PolicyEngine & { queries: PolicyQuery[] } {
  const added: AddedRule[] = [];
  const queries: PolicyQuery[] = [];
  const ruleFor = (toolName: string, decision: Decision, source = 'test-table'): RuleRef => ({
    source,
    line: 0,
    tier: 'user',
    priority: 4.1,
    decision,
    ...(denyMessages[toolName] ? { denyMessage: denyMessages[toolName] } : {}),
  });
  return {
    context: 'action',
    queries,
    get added() {
      return added;
    },
    async decide(query: PolicyQuery, _mode: ApprovalMode): Promise<PolicyVerdict> {
      queries.push(query);
      if (added.some((r) => r.toolName === query.toolName)) {
        return {
          decision: 'allow',
          rule: ruleFor(query.toolName, 'allow', 'always-approval'),
          reason: 'approved always earlier',
        };
      }
      const decision = table[query.toolName];
      if (!decision) return { decision: fallback, rule: null, reason: `no rule matches ${query.toolName}` };
      return {
        decision,
        rule: ruleFor(query.toolName, decision),
        reason: `the table says ${decision} for ${query.toolName}`,
      };
    },
    async allowAlways(query: PolicyQuery, mode: ApprovalMode): Promise<AddedRule> {
      const rule: AddedRule = { toolName: query.toolName, modes: [mode] };
      added.push(rule);
      return rule;
    },
    restoreAdded(rules: readonly AddedRule[]) {
      added.push(...rules);
    },
  };
}

/** Records every answer it is asked for and gives the scripted one (or defers). */
export function createScriptedChannel(
  answer: (p: Parameters<ApprovalChannel['decide']>[0]) => Awaited<ReturnType<ApprovalChannel['decide']>>,
) {
  const asked: Parameters<ApprovalChannel['decide']>[0][] = [];
  const channel: ApprovalChannel = {
    decide: async (p) => {
      asked.push(p);
      return answer(p);
    },
  };
  return { channel, asked };
}

export function createTestScheduler(
  kit: TestKit,
  root: string,
  over: Partial<SchedulerOptions> & Pick<SchedulerOptions, 'policy' | 'channel'>,
) {
  const events: SchedulerEvent[] = [];
  const scheduler = createScheduler({ tools: kit.source, env: envFor(root), ...over });
  return { scheduler, events, emit: (e: SchedulerEvent) => events.push(e) };
}

export const batchOpts = (extra: { truncated?: boolean; signal?: AbortSignal } = {}) => ({
  mode: 'default' as const,
  signal: extra.signal ?? new AbortController().signal,
  ...(extra.truncated ? { truncated: true } : {}),
});
