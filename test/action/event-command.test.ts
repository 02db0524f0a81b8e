import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { parseCommentCommand, routeEvent, type Command, type RouteOptions } from '../../src/action/event-command.js';

const require = createRequire(import.meta.url);
const definitions = require('@octokit/webhooks-examples') as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
const opts: RouteOptions = { trigger: '/agent', triageLabel: 'needs-triage', fixLabel: 'agent-fix' };
const KINDS = new Set(['fix', 'review', 'triage', 'question', 'prompt', 'triage-all', 'reply', 'skip']);

const cases = definitions.flatMap((d) => d.examples.map((payload, i) => [`${d.name} #${i} (${String(payload.action ?? '-')})`, d.name, payload] as const));

describe('routeEvent over every @octokit/webhooks-examples payload', () => {
  it.each(cases)('%s maps to a command or a skip', (_label, name, payload) => {
    const c = routeEvent(name, payload, opts);
    expect(KINDS.has(c.kind)).toBe(true);
    if (c.kind === 'skip') expect(c.reason.length).toBeGreaterThan(0);
  });

  it.each(cases)('%s with a stripped payload still does not throw', (_label, name, payload) => {
    // Drop every nested object: the missing-field paths.
    const shallow = Object.fromEntries(Object.entries(payload).filter(([, v]) => typeof v !== 'object' || v === null));
    expect(routeEvent(name, shallow, opts).kind).toBe('skip');
  });

  it('routes the examples that carry commands', () => {
    const kinds = (name: string) => definitions.find((d) => d.name === name)!.examples.map((p) => routeEvent(name, p, opts).kind);
    expect(kinds('pull_request')).toContain('review');
    expect(kinds('issues')).toContain('triage');
  });
});

const comment = (body: string, extra: Record<string, unknown> = {}) => ({
  action: 'created',
  issue: { number: 7, pull_request: undefined },
  comment: { id: 99, body, user: { login: 'maintainer', type: 'User' }, created_at: '2024-01-01T00:00:00Z' },
  ...extra,
});

describe('comment commands', () => {
  it.each<[string, Partial<Command> & { text?: string; verb?: string; args?: string }]>([
    ['/agent fix', { kind: 'fix', text: '' }],
    ['/agent fix the null check\nand add a test', { kind: 'fix', text: 'the null check\nand add a test' }],
    ['  /agent review security', { kind: 'review', text: 'security' }],
    ['/agent triage', { kind: 'triage', text: '' }],
    ['/agent FIX it', { kind: 'fix', text: 'it' }],
    ['/agent why does this fail?', { kind: 'question', text: 'why does this fail?' }],
    ['/agent approve always', { kind: 'reply', verb: 'approve', args: 'always' }],
    ['/agent deny 2 too risky', { kind: 'reply', verb: 'deny', args: '2 too risky' }],
    ['/agent answer 2', { kind: 'reply', verb: 'answer', args: '2' }],
    ['/agent continue', { kind: 'reply', verb: 'continue', args: '' }],
    ['/agent', { kind: 'help' }],
    ['/agent   \n\n', { kind: 'help' }],
    ['/agent help', { kind: 'help' }],
    ['/agent HELP ', { kind: 'help' }],
    ['/agent help me read this stack trace', { kind: 'question', text: 'help me read this stack trace' }],
  ])('%j', (body, expected) => {
    expect(routeEvent('issue_comment', comment(body), opts)).toMatchObject(expected);
  });

  it.each([
    'please ask /agent fix later',
    '/agentfix',
    'hello',
    '> /agent fix\nquoted',
  ])('%j is skipped', (body) => {
    expect(routeEvent('issue_comment', comment(body), opts).kind).toBe('skip');
  });

  it('ignores the action’s own comments (hidden marker)', () => {
    expect(routeEvent('issue_comment', comment('/agent fix\n<!-- agent-action:progress -->'), opts).kind).toBe('skip');
  });

  it('ignores edited comments', () => {
    expect(routeEvent('issue_comment', { ...comment('/agent fix'), action: 'edited' }, opts).kind).toBe('skip');
  });

  it('marks pull-request threads and needs write permission for comment commands', () => {
    const c = routeEvent('issue_comment', comment('/agent fix', { issue: { number: 3, pull_request: { url: 'x' } } }), opts);
    expect(c).toMatchObject({ kind: 'fix', trigger: { thread: { number: 3, isPullRequest: true }, needsWrite: true, requester: { login: 'maintainer', isBot: false } } });
  });

  it('honours a custom trigger word', () => {
    expect(routeEvent('issue_comment', comment('@bot review'), { ...opts, trigger: '@bot' }).kind).toBe('review');
  });

  it('help is a command on the thread, answered only for people with write access', () => {
    expect(routeEvent('issue_comment', comment('/agent'), opts)).toMatchObject({ kind: 'help', trigger: { thread: { number: 7 }, comment: { body: '/agent' }, needsWrite: true } });
  });

  it('parseCommentCommand is undefined for non-commands', () => {
    expect(parseCommentCommand('text /agent fix', '/agent')).toBeUndefined();
  });
});

describe('other events', () => {
  const sender = { login: 'someone', type: 'User' };
  it.each<[string, Record<string, unknown>, string]>([
    ['issues', { action: 'opened', issue: { number: 1 }, sender }, 'triage'],
    ['issues', { action: 'labeled', issue: { number: 1 }, label: { name: 'agent-fix' }, sender }, 'fix'],
    ['issues', { action: 'labeled', issue: { number: 1 }, label: { name: 'needs-triage' }, sender }, 'triage'],
    ['issues', { action: 'labeled', issue: { number: 1 }, label: { name: 'bug' }, sender }, 'skip'],
    ['issues', { action: 'closed', issue: { number: 1 }, sender }, 'skip'],
    ['pull_request', { action: 'synchronize', pull_request: { number: 2, draft: false }, sender }, 'review'],
    ['pull_request', { action: 'opened', pull_request: { number: 2, draft: true }, sender }, 'skip'],
    ['pull_request', { action: 'closed', pull_request: { number: 2 }, sender }, 'skip'],
    ['schedule', { schedule: '0 3 * * *' }, 'triage-all'],
    ['workflow_dispatch', { inputs: {}, sender }, 'triage-all'],
    ['push', { ref: 'refs/heads/main' }, 'skip'],
  ])('%s %j -> %s', (name, payload, kind) => {
    expect(routeEvent(name, payload, opts).kind).toBe(kind);
  });

  it('uses the prompt input for workflow_dispatch, schedule and unhandled events', () => {
    for (const name of ['workflow_dispatch', 'schedule', 'push']) {
      expect(routeEvent(name, { sender }, { ...opts, prompt: 'update deps' })).toMatchObject({ kind: 'prompt', text: 'update deps' });
    }
  });

  it('triages one issue on a matrix fan-out', () => {
    expect(routeEvent('schedule', {}, { ...opts, issueNumber: 12 })).toMatchObject({ kind: 'triage', trigger: { thread: { number: 12 } } });
  });

  it('skips schedule without prompt or triage label', () => {
    expect(routeEvent('schedule', {}, { ...opts, triageLabel: '' }).kind).toBe('skip');
  });

  it.each([null, 'text', 42])('a %j payload is skipped', (payload) => {
    expect(routeEvent('issue_comment', payload, opts).kind).toBe('skip');
  });
});
