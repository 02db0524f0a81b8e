/**
 * The one bundle's entry (scripts/build.mjs): dist/index.js. The runner starts it as the action
 * (action.yml's main); dist/cli/index.js (package.json's bin) marks the process as the CLI and
 * imports it. One build for both, so every module the two share ships once, in one chunk.
 */
const CLI = Symbol.for('agent-action.cli');

if ((globalThis as Record<symbol, unknown>)[CLI] === true) await import('./cli/index.js');
else await import('./action/index.js');
