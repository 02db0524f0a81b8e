import { describe, expect, it } from 'vitest';
import { parseCommentCommand, routeEvent, type Command, type RouteOptions } from '../../src/action/event-command.js';
import {
  COMMENT_COMMANDS,
  EXPECTED_ROUTES,
  exampleKey,
  FIX_BODY,
  HANDLED_EVENTS,
  readWebhookDefinitions,
  ROUTE_OPTIONS,
} from '../support/webhook-routes.js';

const definitions = readWebhookDefinitions();
const opts: RouteOptions = ROUTE_OPTIONS;

const examples = definitions.flatMap((d) =>
  d.examples.map((payload, i) => ({ key: exampleKey(d.name, i, payload), event: d.name, payload })),
);
const handled = examples.filter((e) => HANDLED_EVENTS.includes(e.event));
const unhandled = examples.filter((e) => !HANDLED_EVENTS.includes(e.event));

describe('routeEvent over every @octokit/webhooks-examples payload', () => {
  it('has an expected route for every example of a handled event, and no other', () => {
    expect(handled.map((e) => e.key).sort()).toEqual(Object.keys(EXPECTED_ROUTES).sort());
    expect(unhandled.length).toBeGreaterThan(200); // the rest of the package: push, release, star...
  });

  it.each(handled.map((e) => [e.key, e] as const))('%s routes exactly as the table says', (key, { event, payload }) => {
    expect(routeEvent(event, payload, opts)).toEqual(EXPECTED_ROUTES[key]);
  });

  it.each(unhandled.map((e) => [e.key, e] as const))(
    '%s is skipped as an event not handled',
    (_key, { event, payload }) => {
      expect(routeEvent(event, payload, opts)).toEqual({ kind: 'skip', reason: `event '${event}' is not handled` });
    },
  );

  it.each(Object.entries(COMMENT_COMMANDS))('%s with the body %j routes to the exact fix command', (key) => {
    const e = handled.find((x) => x.key === key)!;
    const payload =
      e.event === 'pull_request_review'
        ? { ...e.payload, review: { ...e.payload.review, body: FIX_BODY } }
        : { ...e.payload, comment: { ...e.payload.comment, body: FIX_BODY } };
    expect(routeEvent(e.event, payload, opts)).toEqual(COMMENT_COMMANDS[key]);
  });

  // Every nested object dropped: each route must notice the missing field itself and say which,
  // not fall into the catch-all ("payload is missing fields") that hides a crash.
  const REVIEWED = ['opened', 'synchronize', 'ready_for_review', 'reopened'];
  const strippedReason = (event: string, action: string | undefined): string => {
    switch (event) {
      case 'issue_comment':
      case 'pull_request_review_comment':
        if (action !== 'created') return `${event}.${action}: only new comments are commands`;
        return event === 'issue_comment'
          ? 'issue_comment without issue.number'
          : 'pull_request_review_comment without pull_request.number';
      case 'issues':
        return `issues.${action} without issue.number or sender`;
      case 'pull_request_review':
        return action === 'submitted'
          ? 'pull_request_review without pull_request.number'
          : `pull_request_review.${action}: only a submitted review is a command`;
      case 'pull_request':
        return REVIEWED.includes(action ?? '')
          ? 'pull_request without pull_request.number'
          : `pull_request.${action} is not reviewed`;
      case 'workflow_dispatch':
        return 'workflow_dispatch without sender';
      default:
        throw new Error(`no stripped expectation for ${event}`);
    }
  };
  it.each(handled.map((e) => [e.key, e] as const))(
    '%s with every nested object removed is skipped with the missing field named',
    (_key, { event, payload }) => {
      const shallow = Object.fromEntries(
        Object.entries(payload).filter(([, v]) => typeof v !== 'object' || v === null),
      );
      expect(routeEvent(event, shallow, opts)).toEqual({
        kind: 'skip',
        reason: strippedReason(event, payload.action as string | undefined),
      });
    },
  );
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

  it.each(['please ask /agent fix later', '/agentfix', 'hello', '> /agent fix\nquoted'])('%j is skipped', (body) => {
    expect(routeEvent('issue_comment', comment(body), opts).kind).toBe('skip');
  });

  it('ignores the action’s own comments (hidden marker)', () => {
    expect(routeEvent('issue_comment', comment('/agent fix\n<!-- agent-action:progress -->'), opts).kind).toBe('skip');
  });

  it('ignores edited comments', () => {
    expect(routeEvent('issue_comment', { ...comment('/agent fix'), action: 'edited' }, opts).kind).toBe('skip');
  });

  it('marks pull-request threads and needs write permission for comment commands', () => {
    const c = routeEvent(
      'issue_comment',
      comment('/agent fix', { issue: { number: 3, pull_request: { url: 'x' } } }),
      opts,
    );
    expect(c).toMatchObject({
      kind: 'fix',
      trigger: {
        thread: { number: 3, isPullRequest: true },
        needsWrite: true,
        requester: { login: 'maintainer', isBot: false },
      },
    });
  });

  it('honours a custom trigger word', () => {
    expect(routeEvent('issue_comment', comment('@bot review'), { ...opts, trigger: '@bot' }).kind).toBe('review');
  });

  it('help is a command on the thread, answered only for people with write access', () => {
    expect(routeEvent('issue_comment', comment('/agent'), opts)).toMatchObject({
      kind: 'help',
      trigger: { thread: { number: 7 }, comment: { body: '/agent' }, needsWrite: true },
    });
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
      expect(routeEvent(name, { sender }, { ...opts, prompt: 'update deps' })).toMatchObject({
        kind: 'prompt',
        text: 'update deps',
      });
    }
  });

  it('triages one issue on a matrix fan-out', () => {
    expect(routeEvent('schedule', {}, { ...opts, issueNumber: 12 })).toMatchObject({
      kind: 'triage',
      trigger: { thread: { number: 12 } },
    });
  });

  it('a triage mode wins over any event: the plan, or the shard with its issues; the workflow asked, so no one is authorized', () => {
    const fromWorkflow = { fromWorkflow: true, needsWrite: false };
    expect(routeEvent('schedule', { schedule: '0 3 * * *' }, { ...opts, mode: 'triage-plan' })).toEqual({
      kind: 'triage-plan',
      trigger: { requester: { login: 'schedule', isBot: false }, ...fromWorkflow },
    });
    expect(
      routeEvent('workflow_dispatch', { sender }, { ...opts, mode: 'triage', triage: { issues: [4, 2] } }),
    ).toEqual({
      kind: 'triage-shard',
      issues: [4, 2],
      trigger: { requester: { login: 'someone', isBot: false }, ...fromWorkflow },
    });
    expect(
      routeEvent(
        'issue_comment',
        { action: 'created', issue: { number: 1 }, comment: { id: 1, body: '/agent fix', user: sender }, sender },
        { ...opts, mode: 'triage-plan' },
      ).kind,
    ).toBe('triage-plan');
    expect(routeEvent('push', {}, { ...opts, mode: 'triage', triage: { issues: [] } })).toEqual({
      kind: 'skip',
      reason: 'mode triage without issues: nothing to do',
    });
    expect(routeEvent('schedule', {}, { ...opts, mode: 'event' }).kind).toBe('triage-all');
  });

  it('a schedule is the workflow asking (github-actions[bot] is not refused as the action itself)', () => {
    expect(routeEvent('schedule', {}, opts)).toMatchObject({ kind: 'triage-all', trigger: { fromWorkflow: true } });
    expect(routeEvent('workflow_dispatch', { sender }, opts)).not.toHaveProperty('trigger.fromWorkflow');
  });

  it('skips schedule without prompt or triage label', () => {
    expect(routeEvent('schedule', {}, { ...opts, triageLabel: '' }).kind).toBe('skip');
  });

  it.each([null, 'text', 42])('a %j payload is skipped', (payload) => {
    expect(routeEvent('issue_comment', payload, opts).kind).toBe('skip');
  });
});

describe('pull requests: review threads, review bodies, forks, pull_request_target', () => {
  const maintainer = { login: 'maintainer', type: 'User' };
  const sameRepo = { head: { repo: { full_name: 'octo/hello' } }, base: { repo: { full_name: 'octo/hello' } } };
  const fromFork = { head: { repo: { full_name: 'contributor/hello' } }, base: { repo: { full_name: 'octo/hello' } } };
  const reviewComment = (comment: Record<string, unknown>, pr: Record<string, unknown> = sameRepo) => ({
    action: 'created',
    pull_request: { number: 4, ...pr },
    comment: {
      id: 71,
      body: '/agent why?',
      user: maintainer,
      created_at: '2024-01-02T00:00:00Z',
      path: 'src/a.js',
      line: 12,
      side: 'RIGHT',
      diff_hunk: '@@ -1 +1 @@',
      ...comment,
    },
  });

  it('a reply in a review thread keeps its place, its first line and side, and the thread it answers', () => {
    const c = routeEvent(
      'pull_request_review_comment',
      reviewComment({
        start_line: 10,
        start_side: 'LEFT',
        in_reply_to_id: 70,
        html_url: 'https://github.com/octo/hello/pull/4#discussion_r71',
      }),
      opts,
    );
    expect(c).toEqual({
      kind: 'question',
      text: 'why?',
      trigger: {
        requester: { login: 'maintainer', isBot: false },
        thread: { number: 4, isPullRequest: true },
        comment: {
          id: 71,
          kind: 'review',
          body: '/agent why?',
          createdAt: '2024-01-02T00:00:00Z',
          htmlUrl: 'https://github.com/octo/hello/pull/4#discussion_r71',
          path: 'src/a.js',
          line: 12,
          place: { side: 'RIGHT', startLine: 10, startSide: 'LEFT', diffHunk: '@@ -1 +1 @@', inReplyTo: 70 },
        },
        needsWrite: true,
      },
    });
  });

  it('a side that is neither LEFT nor RIGHT is dropped, not passed on', () => {
    expect(
      routeEvent('pull_request_review_comment', reviewComment({ side: 'MIDDLE', start_side: null }), opts),
    ).toMatchObject({
      trigger: { comment: { place: { side: undefined, startSide: undefined } } },
    });
  });

  it('a submitted review with the trigger is a command on the pull request; an edited one is not', () => {
    const review = (action: string, body: string | null) => ({
      action,
      pull_request: { number: 4, ...sameRepo },
      review: { id: 9, body, user: maintainer, submitted_at: '2024-01-02T00:00:00Z', html_url: 'u' },
    });
    expect(routeEvent('pull_request_review', review('submitted', '/agent review security'), opts)).toMatchObject({
      kind: 'review',
      text: 'security',
      trigger: {
        thread: { number: 4, isPullRequest: true },
        comment: { id: 9, kind: 'review-body', createdAt: '2024-01-02T00:00:00Z' },
        needsWrite: true,
      },
    });
    expect(routeEvent('pull_request_review', review('submitted', '/agent'), opts).kind).toBe('help');
    expect(routeEvent('pull_request_review', review('submitted', 'Looks good'), opts)).toEqual({
      kind: 'skip',
      reason: "comment does not start with '/agent'",
    });
    expect(routeEvent('pull_request_review', review('edited', '/agent fix'), opts)).toEqual({
      kind: 'skip',
      reason: 'pull_request_review.edited: only a submitted review is a command',
    });
  });

  it.each<[string, (pr: Record<string, unknown>) => Record<string, unknown>]>([
    [
      'pull_request',
      (pr) => ({ action: 'opened', pull_request: { number: 4, draft: false, ...pr }, sender: maintainer }),
    ],
    ['pull_request_review_comment', (pr) => reviewComment({}, pr)],
    [
      'pull_request_review',
      (pr) => ({
        action: 'submitted',
        pull_request: { number: 4, ...pr },
        review: { id: 9, body: '/agent review', user: maintainer },
      }),
    ],
  ])(
    '%s from a fork is marked with the fork (no secrets there); from the same repository or a same-named case it is not',
    (event, payload) => {
      expect(routeEvent(event, payload(fromFork), opts)).toHaveProperty('trigger.fromFork', 'contributor/hello');
      expect(routeEvent(event, payload({ ...fromFork, head: { repo: null } }), opts)).toHaveProperty(
        'trigger.fromFork',
        'a deleted fork',
      );
      expect(routeEvent(event, payload(sameRepo), opts)).not.toHaveProperty('trigger.fromFork');
      expect(
        routeEvent(event, payload({ ...sameRepo, head: { repo: { full_name: 'Octo/Hello' } } }), opts),
      ).not.toHaveProperty('trigger.fromFork');
    },
  );

  it('pull_request_target: only the review label starts a review, and the labeller needs write access', () => {
    const target = (action: string, label?: string) => ({
      action,
      pull_request: { number: 4, ...fromFork },
      ...(label && { label: { name: label } }),
      sender: maintainer,
    });
    expect(routeEvent('pull_request_target', target('labeled', 'agent-review'), opts)).toEqual({
      kind: 'review',
      text: '',
      trigger: {
        requester: { login: 'maintainer', isBot: false },
        thread: { number: 4, isPullRequest: true },
        needsWrite: true,
      },
    });
    expect(routeEvent('pull_request_target', target('labeled', 'bug'), opts)).toEqual({
      kind: 'skip',
      reason: "pull_request_target.labeled with 'bug', which is not the review label",
    });
    expect(routeEvent('pull_request_target', target('opened'), opts)).toEqual({
      kind: 'skip',
      reason: 'pull_request_target.opened: only the review label starts a run on pull_request_target',
    });
    expect(
      routeEvent('pull_request_target', target('labeled', 'agent-review'), { ...opts, reviewLabel: '' }).kind,
    ).toBe('skip');
  });
});

describe('trigger-anywhere: the first mention in the comment’s prose, found by a Markdown parser', () => {
  const anywhere: RouteOptions = { ...opts, triggerAnywhere: true };
  const issueComment = (body: string) => {
    const e = handled.find((x) => x.event === 'issue_comment' && x.payload.action === 'created')!;
    return routeEvent('issue_comment', { ...e.payload, comment: { ...e.payload.comment, body } }, anywhere);
  };
  const kindAndText = (c: Command) => (c.kind === 'skip' ? c : { kind: c.kind, text: 'text' in c ? c.text : '' });

  // Red if the mention is looked for only at the start, or the command is not the text after it.
  it.each([
    ['Thanks! /agent fix the off-by-one', { kind: 'fix', text: 'the off-by-one' }],
    ['Looks odd.\n\nCould you /agent review this?', { kind: 'review', text: 'this?' }],
    ['- first item\n- then /agent why does add overflow?', { kind: 'question', text: 'why does add overflow?' }],
    ['**Ping** /agent fix it', { kind: 'fix', text: 'it' }],
    // A quoted request and a code sample come first; the commenter's own mention after them counts.
    ['> /agent fix everything\n\nNo: /agent review', { kind: 'review', text: '' }],
  ])('%j routes to %j', (body, expected) => {
    expect(kindAndText(issueComment(body))).toEqual(expected);
  });

  // Red if code, quotes or HTML count as prose (a regex over the body would find every one of these).
  it.each([
    '> /agent fix this\n\nI agree with the above.',
    'On Mon, someone wrote:\n> > /agent fix\n> sure',
    '```\n/agent fix\n```',
    '~~~sh\n/agent fix\n~~~',
    'Run it like this:\n\n    /agent fix',
    'Type `/agent fix` to ask the agent.',
    '<!-- /agent fix -->',
    'see https://example.com/agent fix and foo/agent fix',
    'the /agentfix word is not the trigger',
  ])('%j is not a command', (body) => {
    expect(issueComment(body)).toEqual({
      kind: 'skip',
      reason: "comment does not mention '/agent' outside code and quotes",
    });
  });

  it('without the input, a mid-comment mention is not a command (the default is unchanged)', () => {
    const e = handled.find((x) => x.event === 'issue_comment' && x.payload.action === 'created')!;
    const payload = { ...e.payload, comment: { ...e.payload.comment, body: 'Thanks! /agent fix it' } };
    expect(routeEvent('issue_comment', payload, opts)).toEqual({
      kind: 'skip',
      reason: "comment does not start with '/agent'",
    });
  });
});
