import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorize } from '../../src/action/authorize.js';
import { createGitHubClient, type GitHubClient } from '../../src/action/github-client.js';
import { allowedLabels, publishLabels, readAllowedLabels } from '../../src/action/publish/labels.js';
import { startFakeGitHub, type FakeGitHub } from '../support/fake-github.js';

let gh: FakeGitHub;
let octokit: GitHubClient;
const repo = { owner: 'octo', repo: 'hello' };
const SECRET = 'ghs_supersecrettoken42';

beforeEach(async () => {
  gh = await startFakeGitHub();
  octokit = createGitHubClient({
    token: SECRET,
    baseUrl: gh.url,
    secrets: [SECRET, 'AIza-model-key-99'],
    pacing: 'none',
    retryAfterBaseMs: 1,
  });
});
afterEach(() => gh.close());

const trigger = (login: string, o: { bot?: boolean; needsWrite?: boolean } = {}) => ({
  requester: { login, isBot: o.bot ?? false },
  needsWrite: o.needsWrite ?? true,
});
const opts = { allowedBots: ['renovate[bot]'], selfLogins: ['github-actions[bot]'] };

describe('authorize against the collaborator-permission API', () => {
  it.each([
    ['maintainer', true],
    ['writer', true],
    ['reader', false],
    ['stranger', false],
  ])('%s allowed=%s', async (login, allowed) => {
    const a = await authorize(octokit, repo, { ...opts, trigger: trigger(login) });
    expect(a.allowed).toBe(allowed);
    expect(gh.calls('GET', new RegExp(`/collaborators/${login.replace(/[[\]]/g, '\\$&')}/permission$`))).toHaveLength(
      1,
    );
  });

  it('accepts maintain (role_name) though permission says write', async () => {
    gh.state.permissions.keeper = 'maintain';
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('keeper') })).toEqual({
      allowed: true,
      permission: 'maintain',
    });
  });

  it('refuses bots unless allow-listed, and never itself', async () => {
    gh.state.permissions['dependabot[bot]'] = 'write';
    gh.state.permissions['renovate[bot]'] = 'write';
    gh.state.permissions['github-actions[bot]'] = 'admin';
    expect(
      (await authorize(octokit, repo, { ...opts, trigger: trigger('dependabot[bot]', { bot: true }) })).allowed,
    ).toBe(false);
    expect(
      (await authorize(octokit, repo, { ...opts, trigger: trigger('renovate[bot]', { bot: true }) })).allowed,
    ).toBe(true);
    expect(
      (
        await authorize(octokit, repo, {
          ...opts,
          allowedBots: ['github-actions[bot]'],
          trigger: trigger('github-actions[bot]', { bot: true }),
        })
      ).allowed,
    ).toBe(false);
  });

  it('a run the workflow itself asked for (schedule, a mode input) is allowed without a lookup, even as github-actions[bot]', async () => {
    const t = { ...trigger('github-actions[bot]', { bot: true }), fromWorkflow: true };
    expect(await authorize(octokit, repo, { ...opts, trigger: t })).toEqual({
      allowed: true,
      permission: 'the workflow',
    });
    expect((await authorize(octokit, repo, { ...opts, trigger: { ...t, fromWorkflow: undefined } })).allowed).toBe(
      false,
    );
    expect(gh.requests).toHaveLength(0);
  });

  it('event-driven read-only tasks need no permission lookup', async () => {
    expect(
      (await authorize(octokit, repo, { ...opts, trigger: trigger('reader', { needsWrite: false }) })).allowed,
    ).toBe(true);
    expect(gh.requests).toHaveLength(0);
  });

  it('says why, in words, for each refusal and each grant', async () => {
    gh.state.permissions.helper = 'triage';
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('maintainer') })).toEqual({
      allowed: true,
      permission: 'admin',
    });
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('writer') })).toEqual({
      allowed: true,
      permission: 'write',
    });
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('reader') })).toEqual({
      allowed: false,
      reason: "reader has 'read' permission; write, maintain or admin is needed",
    });
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('helper') })).toEqual({
      allowed: false,
      reason: "helper has 'triage' permission; write, maintain or admin is needed",
    });
    // GitHub answers `read` for anyone on a public repository, not 404; `none` on a private one.
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('stranger') })).toEqual({
      allowed: false,
      reason: "stranger has 'read' permission; write, maintain or admin is needed",
    });
    gh.state.private = true;
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('stranger') })).toEqual({
      allowed: false,
      reason: "stranger has 'none' permission; write, maintain or admin is needed",
    });
    gh.state.private = false;
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('dependabot[bot]', { bot: true }) })).toEqual({
      allowed: false,
      reason: 'dependabot[bot] is a bot and not listed in allowed-bots',
    });
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('github-actions[bot]', { bot: true }) })).toEqual(
      {
        allowed: false,
        reason: "github-actions[bot] is agent-action's own account",
      },
    );
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('reader', { needsWrite: false }) })).toEqual({
      allowed: true,
      permission: 'none needed',
    });
  });

  it("the action's own login and the bot allow-list are matched without regard to case", async () => {
    gh.state.permissions['Renovate[bot]'] = 'write';
    gh.state.permissions['GitHub-Actions[bot]'] = 'admin';
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('GitHub-Actions[bot]', { bot: true }) })).toEqual(
      {
        allowed: false,
        reason: "GitHub-Actions[bot] is agent-action's own account",
      },
    );
    expect(
      await authorize(octokit, repo, {
        ...opts,
        selfLogins: ['GITHUB-ACTIONS[BOT]'],
        trigger: trigger('GitHub-Actions[bot]', { bot: true }),
      }),
    ).toEqual({
      allowed: false,
      reason: "GitHub-Actions[bot] is agent-action's own account",
    });
    // Any of the action's logins (the workflow token's and a GitHub App's) is refused, not only the first.
    expect(
      await authorize(octokit, repo, {
        allowedBots: ['my-app[bot]'],
        selfLogins: ['github-actions[bot]', 'my-app[bot]'],
        trigger: trigger('my-app[bot]', { bot: true }),
      }),
    ).toEqual({
      allowed: false,
      reason: "my-app[bot] is agent-action's own account",
    });
    // The allow-list is kept in lower case (inputs.ts lowers it); the login as GitHub spells it still matches.
    expect(await authorize(octokit, repo, { ...opts, trigger: trigger('Renovate[bot]', { bot: true }) })).toEqual({
      allowed: true,
      permission: 'write',
    });
    // A person's account is never taken for a bot's, whatever its name.
    gh.state.permissions['renovate[bot]'] = 'write';
    expect(
      (await authorize(octokit, repo, { ...opts, allowedBots: [], trigger: trigger('renovate[bot]', { bot: false }) }))
        .allowed,
    ).toBe(true);
  });

  // The rule main.ts and the approval code once each held: they disagreed on an allow-listed bot
  // (allowed to start a run, refused as an answer only after the run had started) and on whether an
  // answer without needsWrite asks for a role.
  describe('who may answer an approval request (answersApproval)', () => {
    const answer = (login: string, o: { bot?: boolean; needsWrite?: boolean } = {}) =>
      authorize(octokit, repo, { ...opts, answersApproval: true, trigger: trigger(login, o) });

    it('an allow-listed bot may start a run but never answer one, and nothing is asked of the API', async () => {
      gh.state.permissions['renovate[bot]'] = 'write';
      expect(await answer('renovate[bot]', { bot: true })).toEqual({
        allowed: false,
        reason: 'renovate[bot] is a bot; bots cannot answer approval requests',
      });
      expect(await answer('dependabot[bot]', { bot: true })).toEqual({
        allowed: false,
        reason: 'dependabot[bot] is a bot; bots cannot answer approval requests',
      });
      expect(gh.requests).toHaveLength(0);
      expect(await authorize(octokit, repo, { ...opts, trigger: trigger('renovate[bot]', { bot: true }) })).toEqual({
        allowed: true,
        permission: 'write',
      });
    });

    it("the action's own account is refused as itself, before the bot rule", async () => {
      expect(await answer('github-actions[bot]', { bot: true })).toEqual({
        allowed: false,
        reason: "github-actions[bot] is agent-action's own account",
      });
    });

    it('a person needs write, maintain or admin, even where the trigger asked no role', async () => {
      gh.state.permissions.keeper = 'maintain';
      expect(await answer('keeper')).toEqual({ allowed: true, permission: 'maintain' });
      expect(await answer('writer', { needsWrite: false })).toEqual({ allowed: true, permission: 'write' });
      expect(await answer('reader', { needsWrite: false })).toEqual({
        allowed: false,
        reason: "reader has 'read' permission; write, maintain or admin is needed",
      });
      expect(await answer('nobody-here')).toMatchObject({ allowed: false });
    });
  });

  it('a persistent server error throws rather than allowing', async () => {
    gh.fail({ path: /permission$/, status: 500, times: 10 });
    await expect(authorize(octokit, repo, { ...opts, trigger: trigger('maintainer') })).rejects.toThrow(/permission/);
  });
});

describe('github client', () => {
  it('retries a 502', async () => {
    gh.fail({ method: 'GET', path: /\/labels$/, status: 502 });
    const labels = await octokit.rest.issues.listLabelsForRepo({ ...repo });
    expect(labels.data.map((l) => l.name)).toContain('bug');
    expect(gh.calls('GET', /\/labels$/)).toHaveLength(2);
  });

  it('waits and retries a 403 secondary rate limit with retry-after', async () => {
    gh.addIssue({ title: 'x', number: 5 });
    gh.fail({ method: 'POST', path: /\/issues\/5\/comments$/, status: 403, retryAfter: 1 });
    const c = await octokit.rest.issues.createComment({ ...repo, issue_number: 5, body: 'hi' });
    expect(c.status).toBe(201);
    expect(gh.calls('POST', /\/issues\/5\/comments$/)).toHaveLength(2);
    expect(gh.state.comments).toHaveLength(1);
  });

  it('a 403 "Resource not accessible by integration" comes back naming the permissions: line, keeping its status; other errors are untouched', async () => {
    // The job's permissions: block as GitHub applies it (the fake answers 403 for a scope it lacks).
    gh.state.jobPermissions = { contents: 'write', issues: 'read' };
    const refused = await octokit.rest.pulls
      .create({ ...repo, head: 'x', base: 'main', title: 't' })
      .catch((e: { status: number; message: string }) => e);
    expect(refused).toMatchObject({
      status: 403,
      message: expect.stringMatching(
        /^Resource not accessible by integration.*\(the workflow's token lacks `pull-requests: write`: add `pull-requests: write` to the job's `permissions:`/,
      ),
    });
    expect(gh.calls('POST', /\/pulls$/)).toHaveLength(1); // a refusal is not retried
    gh.addIssue({ title: 'x', number: 5 });
    await expect(octokit.rest.issues.createComment({ ...repo, issue_number: 5, body: 'hi' })).rejects.toThrow(
      /lacks `issues: write`/,
    );
    gh.state.jobPermissions = { contents: 'write', issues: 'write' };
    gh.fail({ method: 'POST', path: /\/issues\/5\/comments$/, status: 422 });
    await expect(octokit.rest.issues.createComment({ ...repo, issue_number: 5, body: 'hi' })).rejects.toThrow(
      /^injected 422/,
    );
  });

  it('redacts secrets from everything posted', async () => {
    gh.addIssue({ title: 'x', number: 5 });
    await octokit.rest.issues.createComment({
      ...repo,
      issue_number: 5,
      body: `token ${SECRET} and key AIza-model-key-99`,
    });
    expect(gh.state.comments[0].body).toBe('token *** and key ***');
    expect(JSON.stringify(gh.requests.map((r) => r.body))).not.toContain(SECRET);
  });
});

describe('labels', () => {
  const defaults = { triageLabels: [], fixLabel: 'agent-fix', triageLabel: 'needs-triage' };

  it('applies only allowed labels the repository has, in its spelling', async () => {
    gh.addIssue({ title: 'x', number: 9 });
    const allowed = await readAllowedLabels(octokit, repo, defaults);
    const r = await publishLabels({
      octokit,
      repo,
      issue: 9,
      wanted: ['BUG', 'wontfix', 'enhancement', 'Needs-Triage'],
      allowed,
    });
    expect(r).toEqual({ applied: ['bug', 'enhancement'], dropped: ['wontfix', 'Needs-Triage'] });
    expect(gh.state.issues.get(9)!.labels).toEqual(['bug', 'enhancement']);
    expect(gh.state.labels.map((l) => l.name)).not.toContain('wontfix');
  });

  it('retries a 500 on adding labels', async () => {
    gh.addIssue({ title: 'x', number: 9 });
    gh.fail({ method: 'POST', path: /\/issues\/9\/labels$/, status: 500 });
    await publishLabels({ octokit, repo, issue: 9, wanted: ['bug'], allowed: ['bug'] });
    expect(gh.state.issues.get(9)!.labels).toEqual(['bug']);
  });

  it.each([
    ['default: every label but the ones that start runs', defaults, ['bug', 'docs']],
    [
      'default with other trigger labels',
      { ...defaults, fixLabel: 'BUG', triageLabel: 'triage-me' },
      ['agent-fix', 'needs-triage', 'docs'],
    ],
    [
      'an explicit list, matched case-insensitively, only labels that exist',
      { ...defaults, triageLabels: ['DOCS', 'missing'] },
      ['docs'],
    ],
    [
      'an explicit list may name a trigger label (the maintainer chose it)',
      { ...defaults, triageLabels: ['agent-fix'] },
      ['agent-fix'],
    ],
    ['the review label starts runs too (pull_request_target)', { ...defaults, reviewLabel: 'Docs' }, ['bug']],
  ])('allow-list: %s', (_name, settings, expected) => {
    expect(allowedLabels(['bug', 'agent-fix', 'needs-triage', 'docs'], settings)).toEqual(expected);
  });
});
