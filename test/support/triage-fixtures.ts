/**
 * Shared by the triage tests, the triage end-to-end test and the triage benchmark: a backlog of
 * labelled issues in the fake GitHub (some triaged with the action's marker, some updated since,
 * some with a forged marker), per-issue model scripts keyed by the issue a conversation is about,
 * a clock tests step instead of sleeping, and an in-process runner face for the triage modes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ActionFace } from '../../src/action/main.js';
import type { Clock } from '../../src/core/loop.js';
import { createTestFace } from './action-face.js';
import { call, reply, text, usage, type FakeGemini, type FakeReply, type RecordedRequest } from './fake-gemini.js';
import type { FakeGitHub, FakeIssue, FakeUser } from './fake-github.js';
import { makeTempDir } from './git-repo.js';

export const BOT: FakeUser = { login: 'github-actions[bot]', type: 'Bot' };
const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The action's marker as it posts it (the format is the code's; tests use the literal). */
export const markerBody = (seen: string) =>
  `**Triage** (agent-action): labelled \`bug\`.\n<!-- agent-action:triaged seen=${seen} -->`;

export type BacklogKind =
  'todo' | 'triaged' | 'updated-since' | 'forged-marker' | 'marker-no-label' | 'pull-request' | 'closed' | 'unlabelled';

/**
 * The 500-issue backlog of the plan test and the benchmark, numbered by age (1 oldest): every 5th
 * triaged (100); of the rest, n % 25 == 3 updated since their triage (20), n % 50 == 7 carrying a
 * marker an outsider wrote (10), n % 50 == 9 a marker without the label (10), n % 100 == 11 pull
 * requests (5), == 13 closed (5), == 17 without the triage label (5). That leaves 345 never
 * triaged: 385 to do, 485 listed.
 */
export function backlogKind(n: number): BacklogKind {
  if (n % 5 === 0) return 'triaged';
  if (n % 25 === 3) return 'updated-since';
  if (n % 50 === 7) return 'forged-marker';
  if (n % 50 === 9) return 'marker-no-label';
  if (n % 100 === 11) return 'pull-request';
  if (n % 100 === 13) return 'closed';
  if (n % 100 === 17) return 'unlabelled';
  return 'todo';
}

/**
 * Issues numbered from 1, one per entry of `kinds`, created an hour apart from T0 (issue 1 oldest)
 * but inserted in reverse so the fake's insertion order is not the answer. Every issue carries
 * `needs-triage` except 'unlabelled'.
 */
export function seedBacklog(gh: FakeGitHub, kinds: readonly BacklogKind[]): Map<number, BacklogKind> {
  const byNumber = new Map<number, BacklogKind>();
  for (let n = kinds.length; n >= 1; n--) {
    const kind = kinds[n - 1];
    byNumber.set(n, kind);
    const created = iso(T0 + n * HOUR);
    const triagedLabel =
      kind === 'triaged' || kind === 'updated-since' || kind === 'forged-marker' ? ['agent:triaged'] : [];
    const labels = kind === 'unlabelled' ? [] : ['needs-triage', ...triagedLabel];
    const base: Partial<FakeIssue> & { title: string } = {
      number: n,
      title: `Issue ${n}`,
      body: `Something about ${n}.`,
      labels,
      created_at: created,
      state: kind === 'closed' ? 'closed' : 'open',
    };
    if (kind === 'pull-request')
      gh.addPull({
        ...base,
        pull: {
          head: { ref: `b${n}`, sha: 'a'.repeat(40), repoFullName: 'octo/hello' },
          base: { ref: 'main', sha: 'b'.repeat(40) },
          files: [],
        },
      });
    else gh.addIssue(base);
    // A triage 1000 hours after T0 (after every creation), its marker the issue's last write.
    const triagedAt = iso(T0 + 1000 * HOUR + n * 1000);
    if (kind === 'triaged' || kind === 'updated-since' || kind === 'marker-no-label')
      gh.addComment(n, markerBody(created), BOT, triagedAt);
    if (kind === 'forged-marker') gh.addComment(n, markerBody(created), { login: 'reporter' }, triagedAt);
    if (kind === 'updated-since')
      gh.addComment(n, 'It still happens on 2.1.', { login: 'reporter' }, iso(T0 + 1001 * HOUR + n * 1000));
  }
  return byNumber;
}

/** The issue a triage conversation is about, from its first user message ("Triage issue #12: ..."). */
export function triageKeyOf(r: RecordedRequest): string | undefined {
  const first = r.body.contents[0]?.parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('') ?? '';
  const m = /Triage issue #(\d+):/.exec(first);
  return m ? `#${m[1]}` : undefined;
}

/** One issue's conversation: labels, then (optionally) a reply, then the final words. */
export function triageReplies(labels: string[], o: { reply?: string; prompt?: number } = {}): FakeReply[] {
  const u = usage(o.prompt ?? 2000, 40);
  return [
    reply([call('set_labels', { labels })], { usage: u }),
    ...(o.reply ? [reply([call('reply', { body: o.reply })], { usage: u })] : []),
    reply([text(`Labelled ${labels.join(', ') || 'nothing'}.`)], { usage: u }),
  ];
}

/** Routes conversations by issue and scripts each listed issue. */
export function scriptIssues(gemini: FakeGemini, scripts: Record<number, FakeReply[]>): void {
  gemini.routeBy(triageKeyOf);
  for (const [n, replies] of Object.entries(scripts)) gemini.pushFor(`#${n}`, ...replies);
}

/** A clock that never sleeps: each sleep steps it and is recorded. */
export function createSteppedClock(start = T0): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

/** An in-process face for a triage run against the fakes, in the workspace `ws` (a git clone). */
export function triageFace(o: {
  gh: FakeGitHub;
  gemini?: FakeGemini;
  workspace: string;
  inputs: Record<string, string>;
  eventName?: string;
  clock?: Clock;
  summary?: string[];
}): ActionFace & { lines: string[] } {
  const dir = makeTempDir('agent-action-triage-event-');
  const eventPath = join(dir, 'event.json');
  const eventName = o.eventName ?? 'schedule';
  writeFileSync(
    eventPath,
    JSON.stringify(
      eventName === 'schedule'
        ? { schedule: '17 3 * * *' }
        : { inputs: {}, sender: { login: 'maintainer', type: 'User' } },
    ),
  );
  const env: Record<string, string | undefined> = {
    GITHUB_REPOSITORY: 'octo/hello',
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_API_URL: o.gh.url,
    GITHUB_RUN_ID: '77',
    AGENT_ACTION_GITHUB_PACING: 'none',
    'INPUT_GITHUB-TOKEN': 'ghs_triage_token_0000',
    'INPUT_GEMINI-API-KEY': 'AIza-triage-key-0000',
    INPUT_MODEL: 'gemini-2.5-flash',
    ...(o.gemini ? { 'INPUT_GEMINI-BASE-URL': o.gemini.baseUrl } : {}),
  };
  for (const [k, v] of Object.entries(o.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const summary = o.summary;
  return createTestFace(env, {
    clock: o.clock,
    writeSummary: summary ? async (md) => void summary.push(md) : undefined,
  });
}
