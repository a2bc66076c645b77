// Runs every benchmark: each `bench:*` script of package.json, one after the other, so a new
// bench joins by adding its script. Benches hand their figures over through bench/lib/report.ts.
//
//   node scripts/bench.mjs                 full size; writes bench/results/<date>.json and .md
//   node scripts/bench.mjs --smoke         BENCH_SMOKE=1: each bench for a few seconds; fails when
//                                          one fails or reports no figure (CI runs this)
//   --only bench:mq,bench:cache            a subset
//   --jobs N                               benches run at once (default: 2 in a smoke run, 1 at full
//                                          size, where benches must not share the machine)
//   --compare <older report.json>          after the run, the change per figure (regressions > 20% flagged)
//   --report <report.json>                 with --compare: compare this report instead of running
//   --append <report.json>                 with --only: run those benches into an existing report
//                                          (replacing their earlier results), e.g. a bench added later
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { describeSpeed, machineSpeed } from './machine-speed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REGRESSION = 0.2;
const SMOKE_BUDGET_S = 90;

function option(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  // The usage is the comment at the top of this file.
  const source = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8');
  const usage = source.split('\n').filter((line) => line.startsWith('//'));
  console.log(usage.map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

const smoke = process.argv.includes('--smoke');
const only = option('--only')?.split(',');
const compareWith = option('--compare');
const existing = option('--report');
const appendTo = option('--append');
const jobs = Math.max(1, Number(option('--jobs') ?? (smoke ? 2 : 1)));

function allBenchScripts() {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return Object.keys(scripts).filter((name) => name.startsWith('bench:'));
}

function benchScripts() {
  return allBenchScripts().filter((name) => !only || only.includes(name));
}

const loadAverage = () => os.loadavg().map((load) => Number(load.toFixed(2)));

function versionOf(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'absent';
  }
}

function machine() {
  return {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    os: `${os.type()} ${os.release()}`,
    versions: {
      node: process.version,
      redis: versionOf('redis-server', ['--version']).replace(/^Redis server v=(\S+).*/, '$1'),
      docker: versionOf('docker', ['version', '--format', '{{.Server.Version}}']),
      rabbitmq: versionOf('dpkg-query', ['-W', '-f=${Version}', 'rabbitmq-server']),
      ferrum: versionOf('git', ['-C', root, 'rev-parse', '--short', 'HEAD']),
    },
  };
}

/** Runs one bench script; its output goes through (full run) or is kept for a failure (smoke). */
function runBench(script) {
  const figuresFile = path.join(os.tmpdir(), `ferrum-bench-${process.pid}-${script.replace(/\W/g, '_')}.jsonl`);
  fs.rmSync(figuresFile, { force: true });
  const env = { ...process.env, BENCH_REPORT_FILE: figuresFile, ...(smoke ? { BENCH_SMOKE: '1' } : {}) };
  const started = performance.now();
  const before = loadAverage();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {
      cwd: root,
      env,
      stdio: ['ignore', smoke ? 'pipe' : 'inherit', smoke ? 'pipe' : 'inherit'],
      detached: true,
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const limit = smoke ? 180_000 : 60 * 60_000;
    const timer = setTimeout(() => {
      output += `\n(stopped after ${limit / 1000} s)`;
      process.kill(-child.pid, 'SIGKILL');
    }, limit);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const figures = fs.existsSync(figuresFile)
        ? fs
            .readFileSync(figuresFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [];
      fs.rmSync(figuresFile, { force: true });
      const problem =
        code !== 0 ? `exited with ${signal ?? code}` : figures.length === 0 ? 'reported no figures' : undefined;
      resolve({
        script,
        status: problem ? 'failed' : 'ok',
        ...(problem ? { problem } : {}),
        seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
        load: { before, after: loadAverage() },
        figures,
        output,
      });
    });
  });
}

function formatValue(value) {
  // A figure a bench could not measure (NaN) is stored as null.
  if (typeof value !== 'number' || !Number.isFinite(value)) return 'n/a';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function targetOf(figure) {
  const sign = figure.better === 'higher' ? '≥' : '≤';
  if (figure.goal !== undefined)
    return `(absolute ${sign} ${formatValue(figure.goal)}${figure.goalMet ? '' : ', not met'}; not the verdict)`;
  if (figure.target === undefined) return '';
  return `${sign} ${formatValue(figure.target)}${figure.met ? '' : ' (not met)'}`;
}

/**
 * The header's lines on how fast this machine is: the rates measured at the start of the run, then
 * the benches' floors' and references' own figures (the targets are ratios to them).
 */
function speedLines(report) {
  const lines = report.machine.speed
    ? ['', `How fast this machine is, at the start of the run: ${describeSpeed(report.machine.speed, formatValue)}.`]
    : [];
  const speeds = report.benches.flatMap((bench) =>
    bench.figures
      .filter((figure) => figure.machine)
      .map((figure) => `${figure.name} ${formatValue(figure.value)} ${figure.unit}`),
  );
  if (speeds.length > 0)
    lines.push('', `The floors and references the targets are ratios to, in this run: ${speeds.join('; ')}.`);
  return lines;
}

function markdown(report) {
  const { machine: m } = report;
  const lines = [
    `Benchmarks of ${report.date} (ferrum ${m.versions.ferrum}): ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, ` +
      `load average ${report.load.before.join(' ')} before, ${report.load.after.join(' ')} after; ` +
      `Node ${m.versions.node}, Redis ${m.versions.redis}, Docker ${m.versions.docker}, RabbitMQ ${m.versions.rabbitmq}.` +
      (report.complete ? '' : ' Incomplete run: only the benches below finished.'),
    ...speedLines(report),
    '',
    'Load average (1, 5, 15 min) at the start and end of each bench, so a busy run shows:',
    '',
    '| bench | seconds | load at start | load at end |',
    '| --- | --- | --- | --- |',
    ...report.benches.map(
      (bench) =>
        `| ${bench.script} | ${bench.seconds} | ${bench.load.before.join(' ')} | ${bench.load.after.join(' ')} |`,
    ),
    '',
    '| bench | figure | value | target | reference |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const bench of report.benches) {
    if (bench.status !== 'ok') lines.push(`| ${bench.script} | **${bench.problem}** | | | |`);
    for (const figure of bench.figures)
      lines.push(
        `| ${bench.script} | ${figure.name} | ${formatValue(figure.value)} ${figure.unit} | ${targetOf(figure)} | ${figure.reference ?? ''} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function compare(older, newer) {
  const before = new Map();
  for (const bench of older.benches)
    for (const figure of bench.figures) before.set(`${bench.script} ${figure.name}`, figure);
  console.log(`\nchange from ${older.date} to ${newer.date} (regressions over ${REGRESSION * 100}% flagged):`);
  let regressions = 0;
  for (const bench of newer.benches)
    for (const figure of bench.figures) {
      const key = `${bench.script} ${figure.name}`;
      const old = before.get(key);
      if (!old) {
        console.log(`  ${key}: ${formatValue(figure.value)} ${figure.unit} (new)`);
        continue;
      }
      if (old.value === 0) {
        console.log(`  ${key}: 0 -> ${formatValue(figure.value)} ${figure.unit} (no ratio from 0)`);
        continue;
      }
      const change = (figure.value - old.value) / Math.abs(old.value);
      const worse = figure.better === 'higher' ? -change : change;
      const flag = worse > REGRESSION ? '  REGRESSION' : '';
      if (flag) regressions += 1;
      const sign = change >= 0 ? '+' : '';
      console.log(
        `  ${key}: ${formatValue(old.value)} -> ${formatValue(figure.value)} ${figure.unit} (${sign}${(change * 100).toFixed(1)}%)${flag}`,
      );
    }
  const now = new Set(
    newer.benches.flatMap((bench) => bench.figures.map((figure) => `${bench.script} ${figure.name}`)),
  );
  for (const key of before.keys()) if (!now.has(key)) console.log(`  ${key}: missing from the newer report`);
  for (const bench of newer.benches)
    if (bench.status !== 'ok') console.log(`  ${bench.script}: FAILED in the newer run (${bench.problem})`);
  console.log(`${regressions} regression(s) over ${REGRESSION * 100}%`);
}

function reportPath(date) {
  const directory = path.join(root, 'bench', 'results');
  fs.mkdirSync(directory, { recursive: true });
  let file = path.join(directory, `${date}.json`);
  for (let n = 2; fs.existsSync(file); n++) file = path.join(directory, `${date}-${n}.json`);
  return file;
}

async function main() {
  if (existing) {
    if (!compareWith) throw new Error('--report needs --compare <older report>');
    compare(JSON.parse(fs.readFileSync(compareWith, 'utf8')), JSON.parse(fs.readFileSync(existing, 'utf8')));
    return 0;
  }
  const scripts = benchScripts();
  const started = performance.now();
  const earlier = appendTo ? JSON.parse(fs.readFileSync(appendTo, 'utf8')) : null;
  const report = earlier ?? {
    date: new Date().toISOString().slice(0, 10),
    smoke,
    machine: { ...machine(), speed: await machineSpeed(smoke) },
    load: { before: loadAverage() },
  };
  if (!earlier) console.log(`how fast this machine is: ${describeSpeed(report.machine.speed, formatValue)}`);
  const kept = (earlier?.benches ?? []).filter((bench) => !scripts.includes(bench.script));
  console.log(
    `${smoke ? 'smoke run of' : 'running'} ${scripts.length} benches, ${jobs} at a time: ${scripts.join(', ')}`,
  );
  const benches = [];
  // Written after every bench, so that a run stopped half-way leaves what it measured.
  const file = smoke ? undefined : (appendTo ?? reportPath(report.date));
  const save = () => {
    if (!file) return;
    report.load.after = loadAverage();
    report.benches = [...kept, ...benches].map((bench) => ({ ...bench, output: undefined }));
    // Complete once every bench of package.json has a finished run in the report, whichever
    // run (the first, or an --append that ran again what failed) gave it.
    report.complete = allBenchScripts().every((script) =>
      report.benches.some((bench) => bench.script === script && bench.status === 'ok'),
    );
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(file.replace(/\.json$/, '.md'), markdown(report));
  };
  const queue = [...scripts];
  const runNext = async () => {
    for (let script = queue.shift(); script; script = queue.shift()) {
      if (!smoke) console.log(`\n=== ${script}`);
      const result = await runBench(script);
      benches.push(result);
      save();
      const line = `${result.status === 'ok' ? 'ok    ' : 'FAILED'} ${script} (${result.seconds} s, ${result.figures.length} figures, load ${result.load.before[0]} -> ${result.load.after[0]})`;
      console.log(result.problem ? `${line}: ${result.problem}` : line);
      if (smoke && result.status !== 'ok') console.log(result.output.split('\n').slice(-60).join('\n'));
    }
  };
  await Promise.all(Array.from({ length: jobs }, runNext));
  benches.sort((a, b) => scripts.indexOf(a.script) - scripts.indexOf(b.script));
  save();
  const seconds = (performance.now() - started) / 1000;
  const failed = benches.filter((bench) => bench.status !== 'ok');
  console.log(
    `\nbenches: ${benches.length - failed.length} passed, ${failed.length} failed in ${seconds.toFixed(0)} s` +
      (smoke && seconds > SMOKE_BUDGET_S ? ` (over the ${SMOKE_BUDGET_S} s budget of a smoke run)` : ''),
  );
  if (file) {
    console.log(`\n${markdown(report)}\nreport: ${path.relative(root, file)} and .md`);
    if (compareWith) compare(JSON.parse(fs.readFileSync(compareWith, 'utf8')), report);
  }
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
