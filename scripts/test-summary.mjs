// Reads vitest's JSON report and prints the one closing line CI reads: "N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-report.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  console.error(`no test report at ${file}: vitest did not finish`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const failedSuites = (r.testResults ?? []).filter(
  (t) => t.status === 'failed' && (t.assertionResults ?? []).length === 0,
).length;
const passed = r.numPassedTests ?? 0;
const failed = (r.numFailedTests ?? 0) + failedSuites;
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
