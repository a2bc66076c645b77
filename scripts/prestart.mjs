// `npm start`'s preparation, quick once done: the machine's services (scripts/setup-machine.sh
// services: Redis and a running Docker engine, installed or started when missing), then a build
// only when dist/ is older than its sources.
//   node scripts/prestart.mjs             check the machine, build if needed
//   node scripts/prestart.mjs --no-setup  build if needed only
//   node scripts/prestart.mjs --check     say whether a build is needed, change nothing
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { buildNeeded, markBuilt } from './build-state.mjs';

const root = process.cwd();
const args = new Set(process.argv.slice(2));
const why = buildNeeded(root);

if (args.has('--check')) {
  process.stdout.write(why ? `build needed: ${why}\n` : 'up to date\n');
  process.exit(0);
}

function run(command, commandArgs) {
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!args.has('--no-setup')) run('bash', [path.join(import.meta.dirname, 'setup-machine.sh'), 'services']);
if (why) {
  process.stderr.write(`ferrum: building (${why})\n`);
  const startedMs = Date.now();
  run('npm', ['run', 'build', '--silent']);
  markBuilt(root, startedMs);
}
