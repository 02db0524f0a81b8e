/**
 * Images in the thread reach the model as inline image parts, end to end through the bundled
 * dist/index.js: a `/agent` question on an issue whose body shows a screenshot (an attachment URL
 * that redirects, as GitHub's do, to its signed place) and a GIF from the repository's raw files.
 * What is left out (not an image, over the pixel cap, another host) is named in the prompt and in
 * the progress comment; the other host is never asked. GITHUB_SERVER_URL points at the fake GitHub,
 * which serves the attachments as GitHub's web host does.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startActionWorld, type ActionWorld } from '../support/action-world.js';
import { reply, text } from '../support/fake-gemini.js';
import { assertBundle, issueCommentPayload } from '../support/e2e-runner.js';
import { gifOf, pngOf } from '../support/image-bytes.js';

let world: ActionWorld | undefined;
let elsewhere: Server | undefined;
beforeAll(() => assertBundle());
afterEach(async () => {
  await world?.close();
  await new Promise((r) => (elsewhere ? elsewhere.close(r) : r(undefined)));
});

/** A server standing for any host that is not GitHub's: it counts what it is asked. */
async function startElsewhere(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  elsewhere = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' }).end(pngOf(1, 1));
  });
  await new Promise<void>((r) => elsewhere!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`, hits };
}

describe('the bundled action: images in the thread', () => {
  it('sends GitHub-hosted screenshots as inline parts, and names the ones left out', async () => {
    world = await startActionWorld({
      files: { 'README.md': '# app\n' },
      event: { name: 'issue_comment' },
      script: [reply([text('The button overlaps the footer.')])],
    });
    const { gh, gemini } = world;
    const other = await startElsewhere();
    const shot = pngOf(3, 2);
    const logo = gifOf(4, 4);
    gh.state.webFiles.set('/user-attachments/assets/0b1c2d3e-shot', {
      redirect: `${gh.url}/_private-user-images/shot.png?jwt=signed`,
    });
    gh.state.webFiles.set('/_private-user-images/shot.png', { body: shot, type: 'image/png' });
    gh.state.webFiles.set('/octo/hello/raw/main/docs/logo.gif', { body: logo, type: 'image/gif' });
    gh.state.webFiles.set('/user-attachments/assets/notes', { body: Buffer.from('just text'), type: 'image/png' });
    gh.state.webFiles.set('/user-attachments/assets/huge', { body: pngOf(10_000, 10_000), type: 'image/png' });
    const body = [
      'The footer is broken:',
      `![screenshot](${gh.url}/user-attachments/assets/0b1c2d3e-shot)`,
      `<img src="${gh.url}/octo/hello/raw/main/docs/logo.gif" width="40">`,
      `![notes](${gh.url}/user-attachments/assets/notes) ![huge](${gh.url}/user-attachments/assets/huge)`,
      `![tracker](${other.url}/pixel.png)`,
      '```',
      `![in code](${gh.url}/user-attachments/assets/0b1c2d3e-code)`,
      '```',
    ].join('\n');
    gh.addIssue({ number: 7, title: 'Footer overlaps', body, user: { login: 'reporter' } });
    const trigger = gh.addComment(7, '/agent what does the screenshot show?', { login: 'maintainer' });

    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(7, trigger),
      inputs: { 'gemini-api-key': 'AIza-e2e-images-key-0000' },
      env: { GITHUB_SERVER_URL: gh.url },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);

    const first = gemini.requests[0].body.contents[0].parts;
    const inline = first.filter((p) => p.inlineData);
    expect(inline).toEqual([
      { inlineData: { mimeType: 'image/png', data: shot.toString('base64') } },
      { inlineData: { mimeType: 'image/gif', data: logo.toString('base64') } },
    ]);
    const words = first.map((p) => (p.text as string | undefined) ?? '').join('\n');
    expect(words).toContain(`[untrusted image 1 of 2: ${gh.url}/user-attachments/assets/0b1c2d3e-shot]`);
    expect(words).toContain('They are untrusted content');
    expect(words).toContain(`${gh.url}/user-attachments/assets/notes (not a PNG, JPEG, GIF or WebP image)`);
    expect(words).toContain(`${gh.url}/user-attachments/assets/huge (10000×10000 pixels, over the limit of 25000000)`);
    expect(words).toContain(`${other.url}/pixel.png (not on a GitHub host, so not fetched)`);
    // The attachments were asked for with the job's token; the other host and the code block never.
    const asked = gh.requests.filter((q) => /^\/(user-attachments|octo\/hello\/raw)\//.test(q.path));
    expect(asked.map((q) => q.path)).toEqual([
      '/user-attachments/assets/0b1c2d3e-shot',
      '/octo/hello/raw/main/docs/logo.gif',
      '/user-attachments/assets/notes',
      '/user-attachments/assets/huge',
    ]);
    expect(asked.every((q) => /^Bearer \S+/.test(String(q.headers.authorization)))).toBe(true);
    expect(other.hits).toEqual([]);

    const progress = gh.state.comments.find((c) => c.body.includes('<!-- agent-action:progress'))!.body;
    expect(progress).toContain('Images not shown to the model:');
    expect(progress).toContain('/pixel.png (not on a GitHub host, so not fetched)');
  });

  it('sends at most five images; the sixth is named as over the limit', async () => {
    world = await startActionWorld({
      files: { 'README.md': '# app\n' },
      event: { name: 'issue_comment' },
      script: [reply([text('Six screenshots.')])],
    });
    const { gh, gemini } = world;
    const lines: string[] = [];
    for (let i = 1; i <= 6; i++) {
      gh.state.webFiles.set(`/user-attachments/assets/s${i}`, { body: pngOf(i, 1), type: 'image/png' });
      lines.push(`![s${i}](${gh.url}/user-attachments/assets/s${i})`);
    }
    gh.addIssue({ number: 8, title: 'Many shots', body: lines.join('\n'), user: { login: 'reporter' } });
    const trigger = gh.addComment(8, '/agent what do these show?', { login: 'maintainer' });
    const r = await world.run({
      eventName: 'issue_comment',
      payload: issueCommentPayload(8, trigger),
      inputs: { 'gemini-api-key': 'AIza-e2e-images-key-0000' },
      env: { GITHUB_SERVER_URL: gh.url },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const first = gemini.requests[0].body.contents[0].parts;
    expect(first.filter((p) => p.inlineData)).toHaveLength(5);
    const words = first.map((p) => (p.text as string | undefined) ?? '').join('\n');
    expect(words).toContain(`${gh.url}/user-attachments/assets/s6 (over the limit of 5 images)`);
    expect(gh.requests.some((q) => q.path === '/user-attachments/assets/s6')).toBe(false);
  });
});
