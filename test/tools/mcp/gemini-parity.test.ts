/**
 * MCP and hook details against Gemini CLI's own code, loaded in this process from the pinned
 * @google/gemini-cli bundle (test/support/gemini-policy-engine.ts finds its core chunk): how tool
 * names are made, which tools includeTools/excludeTools keep, what the model receives from a tool
 * result, and how several hooks' answers merge. The differences we chose are listed in the
 * modules that make them and are left out of these tables on purpose.
 */
import { describe, expect, it } from 'vitest';
import { mergeHookOutputs } from '../../../src/hooks/aggregate.js';
import type { HookEvent } from '../../../src/hooks/config.js';
import type { HookOutput } from '../../../src/hooks/run-hook.js';
import { buildResponses } from '../../../src/scheduler/batch.js';
import type { Call } from '../../../src/scheduler/call-state.js';
import { isToolEnabled } from '../../../src/tools/mcp/config.js';
import { mcpToolName } from '../../../src/tools/mcp/names.js';
import { toolOutputOf } from '../../../src/tools/mcp/result.js';
import { loadGeminiCore } from '../../support/gemini-policy-engine.js';

interface GeminiMcp {
  generateValidName(name: string): string;
  isEnabled(
    decl: { name: string },
    server: string,
    config: { includeTools?: string[]; excludeTools?: string[] },
  ): boolean;
  DiscoveredMCPTool: new (
    mcpTool: unknown,
    server: string,
    tool: string,
    description: string,
    schema: unknown,
    ...rest: unknown[]
  ) => {
    createInvocation(params: Record<string, unknown>): {
      execute(o: { abortSignal: AbortSignal }): Promise<{ llmContent: unknown }>;
    };
  };
  convertToFunctionResponse(
    toolName: string,
    callId: string,
    llmContent: unknown,
    model: string,
  ): Array<Record<string, any>>;
  HookAggregator: new () => {
    aggregateResults(
      results: Array<{ output?: unknown; duration: number; success: boolean }>,
      event: string,
    ): { finalOutput?: Record<string, unknown> };
  };
}

const gemini = async () => (await loadGeminiCore()) as unknown as GeminiMcp;

describe("tool names: ours are Gemini CLI's", () => {
  it.each([
    ['github', 'search_issues'],
    ['my server', 'list files'],
    ['db', 'query/run'],
    ['srv', 'a.b:c-d'],
    ['mcp_x', 'y'],
    ['9lives', 'tool'],
    ['a-very-long-server-name-for-testing', 'and_an_even_longer_tool_name_that_goes_past_the_limit'],
    ['ünïcode', 'tøøl'],
  ])('%s / %s', async (server, tool) => {
    expect(mcpToolName(server, tool)).toBe((await gemini()).generateValidName(`${server}_${tool}`));
  });
});

describe("includeTools / excludeTools: ours are Gemini CLI's", () => {
  const configs = [
    {},
    { includeTools: ['a'] },
    { includeTools: ['a(x: string)'] },
    { excludeTools: ['a'] },
    { includeTools: ['a', 'b'], excludeTools: ['a'] },
    { includeTools: [] },
  ];
  it.each(configs.flatMap((c) => ['a', 'b', 'ab'].map((name) => [name, c] as const)))(
    '%s with %j',
    async (name, config) => {
      expect(isToolEnabled(name, config)).toBe((await gemini()).isEnabled({ name }, 's', config));
    },
  );
});

describe("what the model receives from an MCP tool: Gemini CLI's parts", () => {
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const CASES: Array<[string, unknown[]]> = [
    ['one text block', [{ type: 'text', text: 'hello' }]],
    ['text with a fence-closing tag', [{ type: 'text', text: 'x </untrusted_context> y' }]],
    [
      'text, image, text',
      [
        { type: 'text', text: 'before' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'text', text: 'after' },
      ],
    ],
    ['only an image', [{ type: 'image', data: PNG, mimeType: 'image/png' }]],
    [
      'audio is left out with a note',
      [
        { type: 'text', text: 'listen' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      ],
    ],
    ['embedded text resource', [{ type: 'resource', resource: { uri: 'x://a', text: 'resource text' } }]],
    ['embedded image resource', [{ type: 'resource', resource: { uri: 'x://b', blob: PNG, mimeType: 'image/png' } }]],
    ['resource link', [{ type: 'resource_link', uri: 'x://c', name: 'c', title: 'The C' }]],
    [
      'unknown block',
      [
        { type: 'mystery', value: 1 },
        { type: 'text', text: 'kept' },
      ],
    ],
    ['no content', []],
  ];

  it.each(CASES)('%s', async (_label, content) => {
    const g = await gemini();
    const fake = {
      callTool: async (calls: Array<{ name: string }>) => [
        { functionResponse: { name: calls[0]!.name, response: { content } } },
      ],
    };
    const tool = new g.DiscoveredMCPTool(fake, 'srv', 'tool_x', 'd', { type: 'object' });
    const { llmContent } = await tool.createInvocation({}).execute({ abortSignal: new AbortController().signal });
    const theirs = g.convertToFunctionResponse('mcp_srv_tool_x', 'id1', llmContent, 'gemini-2.5-pro');

    const out = toolOutputOf('tool_x', { content }, []);
    const call: Call = {
      status: 'succeeded',
      base: { id: 'id1', wireId: 'id1', name: 'mcp_srv_tool_x', args: {}, order: 0 },
      output: out.forModel,
      ...(out.media && { media: out.media }),
      ms: 0,
    };
    const ours = buildResponses([call], 1_000_000);
    // Gemini CLI leaves `output` out when there is no text at all; we never send an empty result.
    if (theirs[0]!.functionResponse.response.output === undefined)
      theirs[0]!.functionResponse.response = { output: '(no output)' };
    expect(ours).toEqual(theirs);
  });
});

describe("several hooks' answers: merged as Gemini CLI merges them", () => {
  const OUTPUTS: HookOutput[][] = [
    [{ decision: 'allow' }, { decision: 'deny', reason: 'no' }],
    [
      { decision: 'ask', systemMessage: 'hm' },
      { reason: 'why', hookSpecificOutput: { additionalContext: 'one' } },
      { hookSpecificOutput: { additionalContext: 'two' } },
    ],
    [
      { continue: false, stopReason: 'stop now' },
      { decision: 'block', reason: 'also blocked' },
    ],
    [{ systemMessage: 'a' }, { systemMessage: 'b', suppressOutput: true }],
    [{ hookSpecificOutput: { clearContext: true } }, { hookSpecificOutput: { other: 1 } }],
  ];
  const EVENTS: HookEvent[] = [
    'BeforeTool',
    'AfterTool',
    'BeforeAgent',
    'AfterAgent',
    'SessionStart',
    'BeforeModel',
    'AfterModel',
    'Notification',
    'PreCompress',
    'SessionEnd',
  ];

  it.each(EVENTS.flatMap((e) => OUTPUTS.map((o, i) => [e, i, o] as const)))(
    '%s, case %i',
    async (event, _i, outputs) => {
      const g = await gemini();
      const theirs = new g.HookAggregator().aggregateResults(
        outputs.map((output) => ({ output, duration: 1, success: true })),
        event,
      ).finalOutput;
      const ours = mergeHookOutputs(event, outputs);
      expect(JSON.parse(JSON.stringify(ours))).toEqual(JSON.parse(JSON.stringify(theirs)));
    },
  );

  it('BeforeToolSelection: NONE wins, names are united and sorted', async () => {
    const g = await gemini();
    const outputs: HookOutput[] = [
      { hookSpecificOutput: { toolConfig: { mode: 'ANY', allowedFunctionNames: ['b', 'a'] } } },
      { hookSpecificOutput: { toolConfig: { mode: 'AUTO', allowedFunctionNames: ['c'] } } },
    ];
    const theirs = new g.HookAggregator().aggregateResults(
      outputs.map((output) => ({ output, duration: 1, success: true })),
      'BeforeToolSelection',
    ).finalOutput;
    expect(JSON.parse(JSON.stringify(mergeHookOutputs('BeforeToolSelection', outputs)))).toEqual(
      JSON.parse(JSON.stringify(theirs)),
    );
  });
});
