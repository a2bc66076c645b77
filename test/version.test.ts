import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { VERSION } from '../src/core/version.js';
import { createProcessRegistry } from '../src/metrics/registry.js';
import { Cli } from './helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const packageVersion = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

describe('one source for the version', () => {
  let cli: Cli;
  beforeAll(async () => {
    cli = await Cli.build();
  });
  afterAll(() => cli.cleanUp());

  it('is package.json: the generated module, the chart and the Dockerfile agree with it', () => {
    expect(VERSION).toBe(packageVersion);
    const chart = parse(fs.readFileSync(path.join(ROOT, 'charts/ferrum/Chart.yaml'), 'utf8')) as { appVersion: string };
    expect(chart.appVersion).toBe(packageVersion);
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(new RegExp(`^ARG FERRUM_VERSION=${packageVersion.replaceAll('.', '\\.')}$`, 'm'));
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
