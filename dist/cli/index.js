#!/usr/bin/env node
// agent-action's CLI: the bundle in ../index.js, told it runs as the CLI (src/entry.ts).
import * as nodeModule from 'node:module';
try {
  nodeModule.enableCompileCache?.();
} catch {
  // no cache: every run compiles its chunks
}
globalThis[Symbol.for('agent-action.cli')] = true;
await import('../index.js');
