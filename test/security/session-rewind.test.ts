/**
 * Attack (issue 26, fourth item): a signed old version of a session. After an approved run has
 * finished, the session ref is pushed back to its own `claimed` version: genuinely signed by the
 * action, nothing forged. `/agent continue` would take it for a crashed run and run the approved
 * call, and publish, a second time. Through the bundled action.
 *
 * Defence: every saved version carries a sequence number; the claim and the finish are recorded in
 * the action's own ledger comment in the thread (src/action/approval/session-ledger.ts), which a push
 * to session refs cannot rewind, and a version below it is refused whatever its signature.
 * `weaken.mjs ... session-forward` accepts every version.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, reply, text } from '../support/fake-gemini.js';
import { bareGit } from '../e2e/approval-support.js';
import { assertBundle, logOf, openHostile, type Hostile } from './harness.js';

let h: Hostile | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const REF = (id: string) => `refs/agent-action/sessions/${id}`;
const docAt = (origin: string, commit: string) =>
  JSON.parse(bareGit(origin, 'show', `${commit}:session.json`)) as { sequence?: number; request: { status: string } };

describe('a session ref rewound to its own signed claimed version', () => {
  it('after the approved run finished, `/agent continue` refuses the old version and nothing runs again', async () => {
    h = await openHostile({ files: { 'scripts/check.js': "console.log('checked');\n" } });
    h.gemini.push(reply([call('run_shell_command', { command: 'node scripts/check.js' })]));
    const first = await h.runComment('/agent fix', { mode: 'autoEdit' });
    expect(first.outputs.status, logOf(first)).toBe('awaiting_approval');
    const id = first.outputs['session-id'];

    h.gemini.push(reply([text('Checked; nothing to change.')]));
    const approved = await h.runComment('/agent approve', { fresh: true });
    expect(approved.outputs.status, logOf(approved)).toBe('success');
    const origin = h.ws.origin;
    const versions = bareGit(origin, 'rev-list', REF(id)).split('\n');
    expect(docAt(origin, versions[0]).request.status).toBe('finished');
    const claimed = versions.find((v) => docAt(origin, v).request.status === 'claimed')!;
    expect(docAt(origin, claimed).sequence).toBeLessThan(docAt(origin, versions[0]).sequence!);

    // The attacker moves the ref back to the signed claimed version.
    bareGit(origin, 'update-ref', REF(id), claimed);
    const requestsBefore = h.gemini.requests.length;
    h.gemini.push(reply([call('run_shell_command', { command: 'node scripts/check.js' })]), reply([text('ran again')]));
    const again = await h.runComment('/agent continue', { fresh: true });

    expect(h.gemini.requests, 'the rewound session ran again').toHaveLength(requestsBefore);
    expect(again.outputs.status, logOf(again)).toBe('failed');
    expect(again.outputs.summary).toMatch(/is an older version \(sequence \d+\) than the newest agent-action saved/);
    // The ledger is one comment of the action's own account.
    expect(h.gh.state.comments.filter((c) => c.body.includes('<!-- agent-action:session-ledger '))).toHaveLength(1);
  });
});
