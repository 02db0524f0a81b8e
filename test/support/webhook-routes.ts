/**
 * What each example payload of @octokit/webhooks-examples must route to, written out by hand: the
 * exact Command, or the exact skip reason. Keyed `<event> #<index> <action>` so a reordered or
 * regenerated examples package shows up as a changed key, not a silently different case.
 * Used by test/action/event-command.test.ts (routing alone) and test/e2e/action-payloads.test.ts
 * (the same payloads through main()).
 *
 * The examples package holds no `schedule` payload, and none of its comments is a command; comment
 * commands on real comment payloads are in COMMENT_COMMANDS below.
 */
import { createRequire } from 'node:module';
import type { Command, RouteOptions } from '../../src/action/event-command.js';

export interface WebhookDefinition {
  name: string;
  examples: Array<Record<string, any>>;
}

export function readWebhookDefinitions(): WebhookDefinition[] {
  return createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];
}

export const ROUTE_OPTIONS: RouteOptions = {
  trigger: '/agent',
  triageLabel: 'needs-triage',
  fixLabel: 'agent-fix',
  reviewLabel: 'agent-review',
};

/** The events with a route of their own; every other event is skipped as not handled. */
export const HANDLED_EVENTS = [
  'issue_comment',
  'pull_request_review_comment',
  'pull_request_review',
  'pull_request',
  'pull_request_target',
  'issues',
  'workflow_dispatch',
  'schedule',
];

export const exampleKey = (event: string, index: number, payload: Record<string, unknown>) =>
  `${event} #${index} ${String(payload.action ?? '-')}`;

const skip = (reason: string): Command => ({ kind: 'skip', reason });
const codertocat = { login: 'Codertocat', isBot: false };
const triage = (issue: number): Command => ({
  kind: 'triage',
  text: '',
  trigger: { requester: codertocat, thread: { number: issue, isPullRequest: false }, needsWrite: false },
});
const review = (pr: number): Command => ({
  kind: 'review',
  text: '',
  trigger: { requester: codertocat, thread: { number: pr, isPullRequest: true }, needsWrite: false },
});
const triageAll = (login: string): Command => ({
  kind: 'triage-all',
  label: 'needs-triage',
  trigger: { requester: { login, isBot: false }, thread: undefined, needsWrite: false },
});

const NOT_A_COMMAND = skip("comment does not start with '/agent'");

export const EXPECTED_ROUTES: Record<string, Command> = {
  'issue_comment #0 created': NOT_A_COMMAND,
  'issue_comment #1 created': NOT_A_COMMAND,
  'issue_comment #2 created': NOT_A_COMMAND,
  'issue_comment #3 created': NOT_A_COMMAND,
  'issue_comment #4 created': NOT_A_COMMAND,
  'issue_comment #5 deleted': skip('issue_comment.deleted: only new comments are commands'),
  'issue_comment #6 deleted': skip('issue_comment.deleted: only new comments are commands'),
  'issue_comment #7 edited': skip('issue_comment.edited: only new comments are commands'),
  'issue_comment #8 edited': skip('issue_comment.edited: only new comments are commands'),

  'issues #0 edited': skip('issues.edited is not a command'),
  'issues #1 assigned': skip('issues.assigned is not a command'),
  'issues #2 assigned': skip('issues.assigned is not a command'),
  'issues #3 assigned': skip('issues.assigned is not a command'),
  'issues #4 deleted': skip('issues.deleted is not a command'),
  'issues #5 demilestoned': skip('issues.demilestoned is not a command'),
  'issues #6 demilestoned': skip('issues.demilestoned is not a command'),
  'issues #7 edited': skip('issues.edited is not a command'),
  'issues #8 edited': skip('issues.edited is not a command'),
  'issues #9 labeled': skip("issues.labeled with 'bug', which is neither the fix nor the triage label"),
  'issues #10 labeled': skip("issues.labeled with 'bug', which is neither the fix nor the triage label"),
  'issues #11 locked': skip('issues.locked is not a command'),
  'issues #12 locked': skip('issues.locked is not a command'),
  'issues #13 milestoned': skip('issues.milestoned is not a command'),
  'issues #14 milestoned': skip('issues.milestoned is not a command'),
  'issues #15 opened': triage(1),
  'issues #16 opened': triage(1),
  'issues #17 opened': triage(1),
  'issues #18 opened': triage(1),
  'issues #19 pinned': skip('issues.pinned is not a command'),
  'issues #20 reopened': skip('issues.reopened is not a command'),
  'issues #21 transferred': skip('issues.transferred is not a command'),
  'issues #22 unassigned': skip('issues.unassigned is not a command'),
  'issues #23 unassigned': skip('issues.unassigned is not a command'),
  'issues #24 unlabeled': skip('issues.unlabeled is not a command'),
  'issues #25 unlabeled': skip('issues.unlabeled is not a command'),
  'issues #26 unlocked': skip('issues.unlocked is not a command'),
  'issues #27 unlocked': skip('issues.unlocked is not a command'),
  'issues #28 unpinned': skip('issues.unpinned is not a command'),

  'pull_request #0 opened': review(2),
  'pull_request #1 assigned': skip('pull_request.assigned is not reviewed'),
  'pull_request #2 assigned': skip('pull_request.assigned is not reviewed'),
  'pull_request #3 closed': skip('pull_request.closed is not reviewed'),
  'pull_request #4 closed': skip('pull_request.closed is not reviewed'),
  'pull_request #5 converted_to_draft': skip('pull_request.converted_to_draft is not reviewed'),
  'pull_request #6 converted_to_draft': skip('pull_request.converted_to_draft is not reviewed'),
  'pull_request #7 converted_to_draft': skip('pull_request.converted_to_draft is not reviewed'),
  'pull_request #8 labeled': skip('pull_request.labeled is not reviewed'),
  'pull_request #9 labeled': skip('pull_request.labeled is not reviewed'),
  'pull_request #10 locked': skip('pull_request.locked is not reviewed'),
  'pull_request #11 locked': skip('pull_request.locked is not reviewed'),
  'pull_request #12 opened': review(2),
  'pull_request #13 opened': review(2),
  'pull_request #14 opened': review(2),
  'pull_request #15 ready_for_review': review(2),
  'pull_request #16 ready_for_review': review(2),
  'pull_request #17 ready_for_review': review(2),
  'pull_request #18 reopened': review(2),
  'pull_request #19 reopened': review(2),
  'pull_request #20 review_request_removed': skip('pull_request.review_request_removed is not reviewed'),
  'pull_request #21 review_requested': skip('pull_request.review_requested is not reviewed'),
  'pull_request #22 synchronize': review(2),
  'pull_request #23 unassigned': skip('pull_request.unassigned is not reviewed'),
  'pull_request #24 unassigned': skip('pull_request.unassigned is not reviewed'),
  'pull_request #25 unlabeled': skip('pull_request.unlabeled is not reviewed'),
  'pull_request #26 unlabeled': skip('pull_request.unlabeled is not reviewed'),
  'pull_request #27 unlocked': skip('pull_request.unlocked is not reviewed'),
  'pull_request #28 unlocked': skip('pull_request.unlocked is not reviewed'),

  // A review's body is a command only when it starts with the trigger; these have none.
  'pull_request_review #0 submitted': NOT_A_COMMAND,
  'pull_request_review #1 dismissed': skip('pull_request_review.dismissed: only a submitted review is a command'),
  'pull_request_review #2 submitted': NOT_A_COMMAND,
  'pull_request_review #3 submitted': NOT_A_COMMAND,

  'pull_request_review_comment #0 created': NOT_A_COMMAND,
  'pull_request_review_comment #1 created': NOT_A_COMMAND,
  'pull_request_review_comment #2 created': NOT_A_COMMAND,
  'pull_request_review_comment #3 deleted': skip('pull_request_review_comment.deleted: only new comments are commands'),
  'pull_request_review_comment #4 edited': skip('pull_request_review_comment.edited: only new comments are commands'),

  'workflow_dispatch #0 -': triageAll('octocat'),
  'workflow_dispatch #1 -': triageAll('Codertocat'),
};

/**
 * The real `created` comment payloads (and `submitted` reviews) with the body replaced by
 * `/agent fix the null check`: the exact command, with the comment's id, author, time, page and
 * (review comments) place taken from the payload.
 */
export const FIX_BODY = '/agent fix the null check';
const issueFix: Command = {
  kind: 'fix',
  text: 'the null check',
  trigger: {
    requester: codertocat,
    thread: { number: 1, isPullRequest: false },
    comment: {
      id: 492700400,
      kind: 'issue',
      body: FIX_BODY,
      createdAt: '2019-05-15T15:20:21Z',
      htmlUrl: 'https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400',
    },
    needsWrite: true,
  },
};
const reviewFix = (line: number | undefined): Command => ({
  kind: 'fix',
  text: 'the null check',
  trigger: {
    requester: codertocat,
    thread: { number: 2, isPullRequest: true },
    comment: {
      id: 284312630,
      kind: 'review',
      body: FIX_BODY,
      createdAt: '2019-05-15T15:20:37Z',
      htmlUrl: 'https://github.com/Codertocat/Hello-World/pull/2#discussion_r284312630',
      path: 'README.md',
      line,
      // The older shape has no side either; both carry the diff hunk.
      place: {
        side: line === undefined ? undefined : 'RIGHT',
        startLine: undefined,
        startSide: undefined,
        diffHunk: '@@ -1 +1 @@\n-# Hello-World',
        inReplyTo: undefined,
      },
    },
    needsWrite: true,
  },
});
/** A submitted review whose body is the command: no place, the review's page as its link. */
const reviewBodyFix: Command = {
  kind: 'fix',
  text: 'the null check',
  trigger: {
    requester: codertocat,
    thread: { number: 2, isPullRequest: true },
    comment: {
      id: 237895671,
      kind: 'review-body',
      body: FIX_BODY,
      createdAt: '2019-05-15T15:20:38Z',
      htmlUrl: 'https://github.com/Codertocat/Hello-World/pull/2#pullrequestreview-237895671',
    },
    needsWrite: true,
  },
};

export const COMMENT_COMMANDS: Record<string, Command> = {
  'issue_comment #0 created': issueFix,
  'issue_comment #1 created': issueFix,
  'issue_comment #2 created': issueFix,
  'issue_comment #3 created': issueFix,
  'issue_comment #4 created': issueFix,
  'pull_request_review_comment #0 created': reviewFix(undefined), // an older payload shape without `line`
  'pull_request_review_comment #1 created': reviewFix(265),
  'pull_request_review_comment #2 created': reviewFix(265),
  'pull_request_review #0 submitted': reviewBodyFix,
  'pull_request_review #2 submitted': reviewBodyFix,
  'pull_request_review #3 submitted': reviewBodyFix,
};
