// Exit 0 when the installed packages of this checkout's package-lock.json cover every package
// another lock file pins (same path, version and integrity), so that lock's release can run on
// this checkout's node_modules; exit 1 otherwise. Used by scripts/build-release.sh.
//   node scripts/lock-covers.mjs <other package-lock.json>
import fs from 'node:fs';

const readPackages = (file) => JSON.parse(fs.readFileSync(file, 'utf8')).packages ?? {};
const ours = readPackages('package-lock.json');
const theirs = readPackages(process.argv[2]);
const same = (a, b) => a && b && a.version === b.version && a.integrity === b.integrity;
const uncovered = Object.keys(theirs).filter((path) => path !== '' && !same(ours[path], theirs[path]));
process.exit(uncovered.length === 0 ? 0 : 1);
