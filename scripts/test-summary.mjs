// Prints vitest's JSON results (one file or several, e.g. of each lane run) as one plain line:
// "tests: N passed, N failed, N skipped".
import fs from 'node:fs';

const totals = { passed: 0, failed: 0, skipped: 0 };
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) continue;
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  totals.passed += results.numPassedTests;
  totals.failed += results.numFailedTests;
  totals.skipped += results.numPendingTests + (results.numTodoTests ?? 0);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
