// The floor of the side-by-side bench (bench/side-by-side.bench.ts): the least a headless agent can
// do for the same session. Plain Node, no dependency, no TypeScript loader: one read_file tool, the
// conversation as an array, a fetch per turn to streamGenerateContent, every SSE frame parsed, each
// read_file call answered from the disk, the final text printed as JSON. No policy, no retries, no
// session file, no events: what any agent must pay, and nothing more.
//
//   GEMINI_API_KEY=k GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT node floor-client.mjs "prompt" <dir>
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

const [prompt = '', cwd = process.cwd()] = process.argv.slice(2);
const url = `${process.env.GOOGLE_GEMINI_BASE_URL}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`;
const headers = { 'content-type': 'application/json', 'x-goog-api-key': process.env.GEMINI_API_KEY ?? '' };
const tools = [
  {
    functionDeclarations: [
      {
        name: 'read_file',
        description: 'Reads a file.',
        parametersJsonSchema: {
          type: 'object',
          properties: { file_path: { type: 'string' } },
          required: ['file_path'],
        },
      },
    ],
  },
];
const contents = [{ role: 'user', parts: [{ text: prompt }] }];

for (;;) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ contents, tools }) });
  const body = await res.text();
  if (!res.ok) {
    process.stderr.write(`floor: HTTP ${res.status}: ${body}\n`);
    process.exit(1);
  }
  const parts = [];
  for (const line of body.split('\n'))
    if (line.startsWith('data: ')) parts.push(...(JSON.parse(line.slice(6)).candidates?.[0]?.content?.parts ?? []));
  contents.push({ role: 'model', parts });
  const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall);
  if (calls.length === 0) {
    process.stdout.write(`${JSON.stringify({ response: parts.map((p) => p.text ?? '').join('') })}\n`);
    break;
  }
  const responses = [];
  for (const c of calls) {
    const output =
      c.name === 'read_file'
        ? await readFile(resolve(cwd, String(c.args?.file_path)), 'utf8')
        : `unknown tool ${c.name}`;
    responses.push({ functionResponse: { id: c.id, name: c.name, response: { output } } });
  }
  contents.push({ role: 'user', parts: responses });
}
