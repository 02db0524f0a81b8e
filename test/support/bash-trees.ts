/**
 * tree-sitter's own bash trees, for tests that check one node at a time: the grammar the splitter
 * loads, parsed as given (no joining of line continuations, unlike parseShell).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll } from 'vitest';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

/** Registers the parser's set-up and clean-up; returns `first(source, type)`: the first node of `type` (named or not), depth first. */
export function useBashTrees(): (source: string, type: string) => Node {
  let parser: Parser | undefined;
  const trees: Tree[] = [];
  beforeAll(async () => {
    await Parser.init();
    parser = new Parser();
    parser.setLanguage(
      await Language.load(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
    );
  });
  afterAll(() => {
    for (const t of trees) t.delete();
    parser?.delete();
  });
  return (source, type) => {
    const tree = parser!.parse(source)!;
    trees.push(tree);
    const stack: Node[] = [tree.rootNode];
    while (stack.length > 0) {
      const n = stack.shift()!;
      if (n.type === type) return n;
      stack.unshift(...n.children.filter((c): c is Node => c !== null));
    }
    throw new Error(`no ${type} in ${JSON.stringify(source)}`);
  };
}
