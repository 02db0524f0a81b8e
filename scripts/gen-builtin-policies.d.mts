// Types for scripts/gen-builtin-policies.mjs, for the test that imports it (test/policy/builtin-rules.test.ts).
import type { Rule } from '../src/policy/rule.js';
export declare const OUTPUT: string;
export interface BuiltinFile {
  file: string;
  rules: Rule[];
}
export declare function readBuiltinRules(dir?: string): Promise<BuiltinFile[]>;
export declare function generateBuiltinRules(files: readonly BuiltinFile[]): Promise<string>;
