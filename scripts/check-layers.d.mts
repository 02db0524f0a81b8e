// Types for scripts/check-layers.mjs, for the test that imports it (test/layers.test.ts).
export declare const LAYERS: string[][];
export interface UpwardImport {
  file: string;
  line: number;
  from: string;
  to: string;
  specifier: string;
  /** Set when one of the two folders is no layer of DESIGN.md. */
  unknown?: true;
}
export declare function upwardImports(root: string): UpwardImport[];
