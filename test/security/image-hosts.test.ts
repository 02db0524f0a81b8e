/**
 * Attack: a stranger's issue makes the action call out. Its body shows "images" on a host of the
 * stranger's choosing (a tracking pixel, an internal address) and an attachment of GitHub's that
 * redirects there; the action fetches thread images with the job's token, so a request to that host
 * would leak the run's address at least, and the token if it were sent along.
 *
 * Defence: only GitHub's own image URLs are fetched, and a redirect is followed only to GitHub's
 * hosts (src/context/thread-images.ts). `weaken.mjs ... image-hosts` turns both checks off.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { reply, text } from '../support/fake-gemini.js';
import { issueCommentPayload } from '../support/e2e-runner.js';
import { pngOf } from '../support/image-bytes.js';
import { assertBundle, logOf } from './harness.js';

let world: ActionWorld | undefined;
let elsewhere: Server | undefined;
beforeAll(assertBundle);
afterEach(async () => {
  await world?.close();
  await new Promise((r) => (elsewhere ? elsewhere.close(r) : r(undefined)));
});

describe('thread images from other hosts, through the bundle', () => {
  it('are never requested, directly or through a redirect', async () => {
    const hits: Array<{ url: string; authorization?: string }> = [];
    elsewhere = createServer((req, res) => {
      hits.push({ url: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(200, { 'content-type': 'image/png' }).end(pngOf(1, 1));
    });
    await new Promise<void>((r) => elsewhere!.listen(0, '127.0.0.1', r));
    const evil = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;

    world = await startActionWorld({
      files: { 'README.md': '# app\n' },
      event: { name: 'issue_comment' },
      script: [reply([text('I see no picture.')])],
    });
    const { gh } = world;
    gh.state.webFiles.set('/user-attachments/assets/bounce', { redirect: `${evil}/bounced.png` });
    const body = [
      `![pixel](${evil}/pixel.png)`,
      `<img src="${evil}/img-tag.png">`,
      `![bounce](${gh.url}/user-attachments/assets/bounce)`,
      // Look-alikes of GitHub's paths on the wrong host, and credentials in the URL.
      `![raw](${evil}/octo/hello/raw/main/a.png) ![creds](http://user:pw@127.0.0.1:${new URL(gh.url).port}/user-attachments/assets/bounce)`,
    ].join('\n');
    gh.addIssue({ number: 9, title: 'Look', body, user: { login: 'stranger' } });
    const trigger = gh.addComment(9, '/agent what do the images show?', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(9, trigger),
      inputs: { 'gemini-api-key': 'AIza-sec-images-key-0000' },
      env: { GITHUB_SERVER_URL: gh.url },
    });

    expect(r.outputs.status, logOf(r)).toBe('success');
    expect(hits).toEqual([]);
    // The redirecting attachment was asked (it is GitHub's); where it pointed was not.
    expect(gh.requests.filter((q) => q.path === '/user-attachments/assets/bounce')).toHaveLength(1);
  });
});
