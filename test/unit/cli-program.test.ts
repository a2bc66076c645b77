import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Command, Help } from 'commander';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionScript, completionTree } from '../../cli/completion.js';
import { buildProgram } from '../../cli/program.js';
import { Cli } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const program = buildProgram();
const help = new Help();

function commandAt(names: string): Command {
  let at: Command = program;
  for (const name of names.split(' ')) at = at.commands.find((sub) => sub.name() === name)!;
  expect(at, names).toBeDefined();
  return at;
}

/** Every command of the tree with its path, hidden ones too. */
function everyCommand(command: Command = program, prefix = ''): { path: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const path = prefix ? `${prefix} ${sub.name()}` : sub.name();
    return [{ path, command: sub }, ...everyCommand(sub, path)];
  });
}

const isHidden = (command: Command) => !help.visibleCommands(command.parent!).includes(command);

/** Old spelling → the command to type now; each still works, hidden, for one release. */
const OLD_SPELLINGS: [string, string][] = [
  ['mq info', 'mq view'],
  ['mq delete-queue', 'mq delete'],
  ['cache info', 'cache view'],
  ['cache delete-cache', 'cache delete'],
  ['users get', 'users view'],
  ['users update', 'users edit'],
  ['projects get', 'projects view'],
  ['clusters show', 'clusters view'],
  ['clusters update', 'clusters edit'],
  ['worker codes get', 'worker codes view'],
  ['worker schedule get', 'worker schedule view'],
  ['worker status', 'worker tasks view'],
  ['worker log', 'worker tasks log'],
  ['worker cancel', 'worker tasks cancel'],
  ['worker retry', 'worker tasks retry'],
];

describe('the command tree', () => {
  it('shows one thing with `view` and changes one with `edit`: no visible get/info/show/status/update', () => {
    const visible = everyCommand().filter(({ command }) => !isHidden(command));
    const names = visible.map(({ command }) => command.name());
    for (const old of ['get', 'info', 'show', 'status', 'update', 'delete-queue', 'delete-cache'])
      expect(
        visible.filter(({ path, command }) => command.name() === old && path !== 'cache get').map(({ path }) => path),
      ).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['list', 'view', 'create', 'edit', 'delete']));
    for (const path of ['mq', 'cache', 'users', 'clusters', 'worker codes', 'worker tasks', 'worker schedule'])
      expect(
        commandAt(path).commands.map((sub) => sub.name()),
        path,
      ).toEqual(expect.arrayContaining(['list', 'view']));
  });

  it('keeps each old spelling, hidden, with the arguments of the new one', () => {
    for (const [old, now] of OLD_SPELLINGS) {
      const before = commandAt(old);
      const after = commandAt(now);
      expect(isHidden(before), old).toBe(true);
      expect(isHidden(after), now).toBe(false);
      expect(
        before.registeredArguments.map((arg) => arg.name()),
        old,
      ).toEqual(after.registeredArguments.map((arg) => arg.name()));
    }
  });

  it('has the new commands: schedule --cron, functions calls, upload --file-name/--runtime, mq edit', () => {
    const flags = (path: string) => commandAt(path).options.map((option) => option.long);
    expect(flags('worker schedule create')).toEqual(expect.arrayContaining(['--cron', '--timezone', '--run-every']));
    expect(flags('worker upload')).toEqual(expect.arrayContaining(['--file-name', '--runtime', '--command']));
    expect(commandAt('functions calls').commands.map((sub) => sub.name())).toEqual(['list', 'view', 'log']);
    expect(commandAt('mq edit').registeredArguments.map((arg) => arg.name())).toEqual(['queue']);
    expect(program.options.map((option) => option.long)).toEqual(expect.arrayContaining(['--output', '--json']));
  });
});

describe('shell completion', () => {
  it('is generated from the visible commands, old spellings left out', () => {
    const tree = completionTree(program);
    const mq = tree.find((node) => node.path === 'mq')!;
    expect(mq.words).toEqual(expect.arrayContaining(['list', 'view', 'edit', 'delete', 'messages', '--help']));
    expect(mq.words).not.toContain('info');
    expect(mq.words).not.toContain('delete-queue');
    expect(tree.find((node) => node.path === '')!.words).toEqual(
      expect.arrayContaining(['mq', 'worker', 'completion', '--output', '--port']),
    );
    expect(tree.map((node) => node.path)).toContain('worker schedule create');
    for (const shell of ['bash', 'zsh', 'fish'] as const) {
      const script = completionScript(program, shell);
      expect(script, shell).toContain("'worker tasks'");
      expect(script, shell).not.toMatch(/delete-queue/);
    }
  });

  it('completes in bash: the words after the command typed so far', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-completion-'));
    const file = path.join(dir, 'ferrum.bash');
    fs.writeFileSync(file, completionScript(program, 'bash'));
    const complete = (...words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ferrum; echo "\${COMPREPLY[*]}"`,
          'x',
          file,
          ...words,
        ],
        { encoding: 'utf8' },
      ).trim();
    try {
      expect(complete('ferrum', 'm').split(' ')).toEqual(['mq']);
      expect(complete('ferrum', 'mq', 'v').split(' ')).toEqual(['view']);
      expect(complete('ferrum', '--port', '8080', 'worker', 'tasks', '').split(' ')).toEqual(
        expect.arrayContaining(['list', 'view', 'log', 'cancel', 'retry']),
      );
      expect(complete('ferrum', 'worker', 'schedule', 'create', '--c').split(' ')).toEqual(
        expect.arrayContaining(['--cron', '--cluster']),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('start-up cost', () => {
  it('loads no HTTP client, table, zip or YAML module before an action runs', async () => {
    const result = await build({
      entryPoints: [path.join(ROOT, 'bin/ferrum.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
      metafile: true,
      outdir: path.join(os.tmpdir(), 'ferrum-import-graph'),
      splitting: true,
      logLevel: 'silent',
    });
    const inputs = result.metafile.inputs;
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const imported of inputs[file]?.imports ?? [])
        if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit('bin/ferrum.ts');
    const heavy = [...loaded].filter((file) =>
      /^(undici|cli-table3|yazl|yaml|ioredis|dockerode|fastify|bullmq|pino)$|cli\/(context|api-client|output|code-upload|code-package)\.ts$|^client\//.test(
        file,
      ),
    );
    expect(heavy).toEqual([]);
    expect(loaded).toContain('cli/program.ts');
  });
});

describe('usage errors', () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await Cli.build();
  });
  afterAll(() => cli?.cleanUp());

  it('print the error, the one usage line and where the help is, and exit 2', async () => {
    const missing = await cli.run(['mq', 'view']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toBe(
      "error: missing required argument 'queue'\nUsage: ferrum mq view [options] <queue>\nRun 'ferrum mq view --help' for its arguments and options.\n",
    );
    const unknown = await cli.run(['mq', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')).toEqual([
      "error: unknown command 'frobnicate'",
      'Usage: ferrum mq [options] [command]',
      "Run 'ferrum mq --help' for its commands and options.",
      '',
    ]);
    const badFormat = await cli.run(['-o', 'xml', 'mq', 'list']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toMatch(/^error: option '-o, --output <format>' argument 'xml' is invalid/);
    expect(badFormat.stderr.split('\n').length).toBeLessThan(5);
  });

  it('prints the completion script of each shell, and refuses another', async () => {
    const bash = await cli.run(['completion', 'bash']);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toMatch(/^complete -F _ferrum ferrum$/m);
    expect((await cli.run(['completion', 'fish'])).stdout).toMatch(/^complete -c ferrum /m);
    expect((await cli.run(['completion', 'zsh'])).stdout).toMatch(/^#compdef ferrum/);
    const other = await cli.run(['completion', 'powershell']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/Allowed choices are bash, zsh, fish/);
  });
});
