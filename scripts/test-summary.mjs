// Prints vitest's JSON results (one file or several, e.g. of each lane run) as one plain line:
// "tests: N passed, N failed, N skipped", after the name of each failed test (CI shows only the
// end of its output, so what failed must be there).
import fs from 'node:fs';
import path from 'node:path';

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) continue;
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  totals.passed += results.numPassedTests;
  totals.failed += results.numFailedTests;
  totals.skipped += results.numPendingTests + (results.numTodoTests ?? 0);
  for (const suite of results.testResults ?? []) {
    const where = path.relative(process.cwd(), suite.name);
    for (const test of suite.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      const why = (test.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
      failures.push(`FAILED ${where} > ${test.fullName}\n       ${why}`);
    }
    if ((suite.assertionResults ?? []).length === 0 && suite.status === 'failed') {
      failures.push(`FAILED ${where} (file)\n       ${(suite.message ?? '').split('\n')[0].slice(0, 300)}`);
    }
  }
}
for (const line of failures) console.log(line);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
