/**
 * Gemini CLI extensions: folders holding a `gemini-extension.json` (the Action: the trusted
 * commit's `.gemini/extensions/*`; the CLI: also `~/.gemini/extensions/*`). Read as Gemini CLI
 * reads them: `name` (letters, digits and dashes) and `version` required; `${extensionPath}`,
 * `${workspacePath}` and `${/}` replaced in every string; `contextFileName` (a name or a list;
 * default `GEMINI.md`, kept only if it exists, never outside the extension's folder); `mcpServers`
 * (their `trust` dropped: an extension cannot trust itself); `excludeTools`; commands in its
 * `commands/` folder (commands/load-commands.ts). A broken manifest skips that extension with a
 * warning naming it.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { isInside } from '../common/paths.js';
import { messageOf } from '../common/errors.js';
import { parseMcpServers, type McpOrigin, type McpServerConfig } from '../tools/mcp/config.js';

export interface GeminiExtension {
  name: string;
  version: string;
  /** Where its files are read (the trusted snapshot's copy in the Action). */
  path: string;
  /** For messages: `.gemini/extensions/lint`. */
  label: string;
  origin: Exclude<McpOrigin, 'workflow'>;
  /** Absolute paths of its context files that exist. */
  contextFiles: string[];
  servers: McpServerConfig[];
  excludeTools: string[];
}

export interface ExtensionFolder {
  /** The folder that holds one folder per extension. */
  dir: string;
  /** `.gemini/extensions`, `~/.gemini/extensions`. */
  label: string;
  origin: Exclude<McpOrigin, 'workflow'>;
  /**
   * What `${extensionPath}` becomes for an extension of this folder, by its folder name: where its
   * processes see it (the Action binds the trusted `.gemini/` over the work tree's). Default: its path.
   */
  runPathOf?: (dirName: string) => string;
}

const MANIFEST = 'gemini-extension.json';

export async function readGeminiExtensions(
  folders: readonly ExtensionFolder[],
  o: { workspace: string; expand?: (value: string) => string },
): Promise<{ extensions: GeminiExtension[]; warnings: string[] }> {
  const warnings: string[] = [];
  const byName = new Map<string, GeminiExtension>();
  for (const folder of folders) {
    const names = await readdir(folder.dir).catch(() => [] as string[]);
    for (const dirName of names.sort()) {
      const path = join(folder.dir, dirName);
      if (!existsSync(join(path, MANIFEST))) continue;
      const label = `${folder.label}/${dirName}`;
      try {
        const ext = await readExtension(path, {
          label,
          folder,
          dirName,
          workspace: o.workspace,
          warnings,
          expand: o.expand,
        });
        // The same name in a later folder (the project's after the user's) replaces the earlier one.
        byName.delete(ext.name);
        byName.set(ext.name, ext);
      } catch (e) {
        warnings.push(`extension ${label} skipped: ${messageOf(e)}`);
      }
    }
  }
  return { extensions: [...byName.values()], warnings };
}

interface ReadContext {
  label: string;
  folder: ExtensionFolder;
  dirName: string;
  workspace: string;
  warnings: string[];
  expand?: (value: string) => string;
}

async function readExtension(path: string, c: ReadContext): Promise<GeminiExtension> {
  const file = `${c.label}/${MANIFEST}`;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(join(path, MANIFEST), 'utf8'));
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${messageOf(e)}`, { cause: e });
  }
  const runPath = c.folder.runPathOf?.(c.dirName) ?? path;
  const m = hydrate(raw, { extensionPath: runPath, workspacePath: c.workspace, '/': sep, pathSeparator: sep });
  if (!isRecord(m)) throw new Error(`${file} must hold a JSON object`);
  if (typeof m.name !== 'string' || !m.name) throw new Error(`${file}: "name" is required`);
  if (typeof m.version !== 'string' || !m.version) throw new Error(`${file}: "version" is required`);
  if (!/^[a-zA-Z0-9-]+$/.test(m.name))
    throw new Error(`${file}: invalid name "${m.name}": only letters, digits and dashes are allowed`);
  const names = contextNamesOf(m.contextFileName, file);
  const contextFiles = names.map((n) => {
    const abs = resolve(path, n);
    if (!isInside(path, abs)) throw new Error(`${file}: context file "${n}" is outside the extension's folder`);
    return abs;
  });
  const servers = parseMcpServers(stripTrust(m.mcpServers), {
    source: { label: `${file} (extension ${m.name})`, origin: c.folder.origin },
    ...(c.expand && { expand: c.expand }),
  });
  c.warnings.push(...servers.problems.map((p) => `${file} ${p.path}: ${p.message}`));
  const exclude = Array.isArray(m.excludeTools) ? m.excludeTools.filter((t): t is string => typeof t === 'string') : [];
  if (m.excludeTools !== undefined && !Array.isArray(m.excludeTools))
    c.warnings.push(`${file}: "excludeTools" must be a list of tool names; ignored`);
  return {
    name: m.name,
    version: m.version,
    path,
    label: c.label,
    origin: c.folder.origin,
    contextFiles: contextFiles.filter((f) => existsSync(f)),
    servers: servers.servers,
    excludeTools: exclude,
  };
}

function contextNamesOf(v: unknown, file: string): string[] {
  if (v === undefined) return ['GEMINI.md'];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new Error(`${file}: "contextFileName" must be a file name or a list of them`);
}

/** Gemini CLI leaves `trust` out of an extension's servers: trusting is the user's call. */
function stripTrust(servers: unknown): unknown {
  if (!isRecord(servers)) return servers;
  return Object.fromEntries(
    Object.entries(servers).map(([k, v]) => {
      if (!isRecord(v)) return [k, v];
      const { trust: _trust, ...rest } = v;
      return [k, rest];
    }),
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `${name}` replaced in every string of a JSON value (unknown names stay as written); prototype keys dropped. */
function hydrate(v: unknown, vars: Record<string, string>): unknown {
  if (typeof v === 'string') return v.replace(/\$\{(.*?)\}/g, (m, k: string) => vars[k] ?? m);
  if (Array.isArray(v)) return v.map((x) => hydrate(x, vars));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v))
    if (!['__proto__', 'constructor', 'prototype'].includes(k)) out[k] = hydrate(x, vars);
  return out;
}

/** The extensions' context files as memory reads them: each confined to its extension's folder. */
export function extensionContextFiles(extensions: readonly GeminiExtension[]) {
  return extensions.flatMap((e) =>
    e.contextFiles.map((abs) => ({
      abs,
      confine: e.path,
      label: `${e.label}/${relative(e.path, abs).split(sep).join('/')}`,
    })),
  );
}
