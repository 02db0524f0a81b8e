// Gemini CLI's own policy engine, loaded in this process from the installed @google/gemini-cli
// bundle (pinned in package.json), to compare decisions call by call. The bundle's core chunk
// exports PolicyEngine, loadPoliciesFromToml and the shell parser set-up; the chunk's file name is
// a build hash, so it is found by what it exports.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ApprovalMode, PolicyContext, PolicyQuery, TierName } from '../../src/policy/types.js';

type GeminiDecision = 'allow' | 'deny' | 'ask_user';

interface GeminiModule {
  PolicyEngine: new (config: Record<string, unknown>) => {
    check(
      call: { name: string; args: Record<string, unknown> },
      serverName?: string,
      annotations?: Record<string, unknown>,
      subagent?: string,
    ): Promise<{ decision: GeminiDecision }>;
  };
  NoopSandboxManager: new (options: { workspace: string }) => unknown;
  loadPoliciesFromToml(
    paths: string[],
    tierOf: (path: string) => number,
  ): Promise<{
    rules: unknown[];
    checkers: unknown[];
    errors: Array<{ severity?: string; message: string; details?: string; filePath?: string }>;
  }>;
  initializeShellParsers(): Promise<void>;
  debugLogger: { debug: (...a: unknown[]) => void; log: (...a: unknown[]) => void; warn: (...a: unknown[]) => void };
}

export const GEMINI_BUNDLE = join(import.meta.dirname, '../../node_modules/@google/gemini-cli/bundle');

const TIERS: { readonly [T in TierName]: number } = { default: 1, extension: 2, workspace: 3, user: 4, admin: 5 };

let loaded: Promise<GeminiModule> | undefined;

export function loadGeminiCore(): Promise<GeminiModule> {
  loaded ??= (async () => {
    const chunk = readdirSync(GEMINI_BUNDLE)
      .filter((f) => /^chunk-[A-Z0-9]+\.js$/.test(f))
      .map((f) => join(GEMINI_BUNDLE, f))
      .filter((f) => statSync(f).size > 1_000_000)
      .find((f) =>
        /\n {2}PolicyEngine,\n[\s\S]*\n {2}loadPoliciesFromToml,\n/.test(readFileSync(f, 'utf8').slice(-200_000)),
      );
    if (!chunk) throw new Error(`no chunk of ${GEMINI_BUNDLE} exports PolicyEngine and loadPoliciesFromToml`);
    const m = (await import(pathToFileURL(chunk).href)) as GeminiModule;
    // Its debug logger writes every decision to the console.
    m.debugLogger.debug = () => {};
    m.debugLogger.log = () => {};
    await m.initializeShellParsers();
    return m;
  })();
  return loaded;
}

export interface GeminiEngineOptions {
  /** Policy files or folders by tier, as Gemini CLI would load them. */
  tiers: Partial<Record<TierName, readonly string[]>>;
  context: Exclude<PolicyContext, 'action'>;
  mode: ApprovalMode;
  workspace: string;
}

/** A decision function backed by Gemini CLI's engine; ask_user becomes deny where nobody can be asked, as its scheduler does. */
export async function createGeminiDecider(
  o: GeminiEngineOptions,
): Promise<(q: PolicyQuery) => Promise<GeminiDecision>> {
  const m = await loadGeminiCore();
  const paths: string[] = [];
  const tierOf = new Map<string, number>();
  for (const [tier, list] of Object.entries(o.tiers) as Array<[TierName, string[]]>) {
    for (const p of list) {
      paths.push(p);
      tierOf.set(p, TIERS[tier]);
    }
  }
  const { rules, checkers, errors } = await m.loadPoliciesFromToml(paths, (p) => tierOf.get(p) ?? 1);
  const fatal = errors.filter((e) => e.severity !== 'warning');
  if (fatal.length > 0) throw new Error(`Gemini CLI rejects these policies: ${JSON.stringify(fatal)}`);
  const engine = new m.PolicyEngine({
    rules,
    checkers,
    approvalMode: o.mode,
    nonInteractive: o.context === 'headless',
    sandboxManager: new m.NoopSandboxManager({ workspace: o.workspace }),
  });
  return async (q) => {
    const { decision } = await engine.check({ name: q.toolName, args: q.args }, q.mcpServer, q.annotations, q.subagent);
    return o.context === 'headless' && decision === 'ask_user' ? 'deny' : decision;
  };
}
