// Prints vitest's JSON results as one plain line: "tests: N passed, N failed, N skipped".
import fs from 'node:fs';

const file = process.argv[2];
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = results.numPendingTests + (results.numTodoTests ?? 0);
console.log(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
