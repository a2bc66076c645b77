import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VERSION } from '../../src/core/version.js';
import { createProcessRegistry } from '../../src/metrics/registry.js';
import { Cli } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const packageVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

/** What ships or documents Ferrum (tests, whose fixtures may name any version, and recorded bench results aside). */
const SOURCES = [
  'api',
  'bin',
  'charts',
  'cli',
  'controller',
  'docs',
  'runner',
  'scripts',
  'src',
  'web',
  'README.md',
  'Dockerfile',
];

/** The lines allowed to spell the version out: those the generator writes (and the test above checks). */
const GENERATED: Record<string, RegExp> = {
  'src/core/version.ts': /^export const VERSION = '[^']*';$/,
  Dockerfile: /^ARG FERRUM_VERSION=/,
  // appVersion is written from package.json; version is the chart's own, which only happens to be equal.
  'charts/ferrum/Chart.yaml': /^(appVersion|version): /,
  // A storage feature flag names the release that introduced it, which stays when the version moves on.
  'src/core/features/feature-registry.ts': /^ {4}introducedIn: '[^']*',$/,
  'docs/operations.md': /^\| `[a-z0-9_]+` \| [0-9.]+ \| /,
};

function sourceFiles(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return [];
  if (!fs.statSync(full).isDirectory()) return [entry];
  return fs.readdirSync(full).flatMap((name) => sourceFiles(path.join(entry, name)));
}

describe('one source for the version', () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await Cli.build();
  });
  afterAll(() => cli.cleanUp());

  it('is package.json: the generated module, the chart, the Dockerfile and the command package agree with it', () => {
    expect(VERSION).toBe(packageVersion);
    const cliPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages/cli/package.json'), 'utf8')) as {
      version: string;
    };
    expect(cliPackage.version).toBe(packageVersion);
    const chart = parse(fs.readFileSync(path.join(ROOT, 'charts/ferrum/Chart.yaml'), 'utf8')) as { appVersion: string };
    expect(chart.appVersion).toBe(packageVersion);
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^ARG FERRUM_VERSION=${packageVersion.replaceAll('.', '\\.')}$`, 'm'));
  });

  it('is spelt out nowhere else: the chart and the code read it from the generated places', () => {
    const literal = new RegExp(`(?<![0-9.])${packageVersion.replaceAll('.', '\\.')}(?!\\.?[0-9])`);
    const found: string[] = [];
    for (const file of SOURCES.flatMap(sourceFiles)) {
      const content = fs.readFileSync(path.join(ROOT, file));
      if (content.includes(0)) continue; // binary
      content
        .toString('utf8')
        .split('\n')
        .forEach((line, index) => {
          if (literal.test(line) && !GENERATED[file]?.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(found, `hard-coded ${packageVersion}: use VERSION (src/core/version.ts) or the chart's appVersion`).toEqual(
      [],
    );
  });

  it('is what ferrum --version prints', async () => {
    const result = await cli.run(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it('labels ferrum_build_info', async () => {
    const text = await createProcessRegistry().metrics();
    expect(text).toContain(`ferrum_build_info{version="${packageVersion}",node_version="${process.versions.node}"} 1`);
  });
});
