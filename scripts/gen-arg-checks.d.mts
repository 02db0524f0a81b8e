// Types for scripts/gen-arg-checks.mjs, for the tests that import it (test/tools/arg-checks.test.ts).
export declare const OUTPUT: string;
export interface ArgsDeclaration {
  name: string;
  params: unknown;
}
export declare function readBuiltinDeclarations(): Promise<ArgsDeclaration[]>;
export declare function generateArgChecks(declarations: readonly ArgsDeclaration[]): Promise<string>;
export declare function parseCheckModule(name: string, moduleText: string, external: { identifier: string; variables: unknown[] }): { imports: string[]; body: string };
