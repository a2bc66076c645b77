import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { freeLoopbackPort } from '../../src/core/free-port.js';
import { eventually } from './eventually.js';

/** What `promtool check metrics` says of a /metrics page: empty when it finds nothing to flag. */
export function promtoolCheckMetrics(text: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

export interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  value: string;
}

export interface PrometheusOptions {
  /** host:port of every target of the job `job`. */
  targets: string[];
  job: string;
  /** The `groups` of a rules file (a PrometheusRule's spec.groups). */
  ruleGroups: unknown[];
  /** Scrape and rule evaluation interval. */
  interval: string;
}

/**
 * Debian's Prometheus server on a free loopback port, scraping `targets` and evaluating the given
 * rules, its data in a temporary directory.
 */
export class TestPrometheus {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly url: string,
    private readonly output: () => string,
  ) {}

  static async start(options: PrometheusOptions): Promise<TestPrometheus> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-prometheus-'));
    fs.writeFileSync(path.join(dir, 'rules.yml'), YAML.stringify({ groups: options.ruleGroups }));
    fs.writeFileSync(
      path.join(dir, 'prometheus.yml'),
      YAML.stringify({
        global: {
          scrape_interval: options.interval,
          evaluation_interval: options.interval,
          scrape_timeout: options.interval,
        },
        rule_files: [path.join(dir, 'rules.yml')],
        scrape_configs: [{ job_name: options.job, static_configs: [{ targets: options.targets }] }],
      }),
    );
    const check = spawnSync('promtool', ['check', 'config', path.join(dir, 'prometheus.yml')], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`promtool check config: ${check.stdout}${check.stderr}`);
    const port = await freeLoopbackPort();
    const child = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    // No prometheus binary: `bash scripts/setup-machine.sh test` installs Debian's.
    child.once('error', (error) => (stderr += `${error.message}\n`));
    const prometheus = new TestPrometheus(child, dir, `http://127.0.0.1:${port}`, () => stderr);
    await eventually(
      async () => child.exitCode === null && (await fetch(`${prometheus.url}/-/ready`).catch(() => null))?.ok,
      30_000,
      'Prometheus ready',
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${stderr}`);
    });
    return prometheus;
  }

  async alerts(): Promise<Alert[]> {
    const response = await fetch(`${this.url}/api/v1/alerts`);
    const body = (await response.json()) as { data: { alerts: Alert[] } };
    return body.data.alerts;
  }

  /** Alert `name` with labels including `labels`, pending or firing. */
  async active(name: string, labels: Record<string, string> = {}): Promise<Alert[]> {
    return (await this.alerts()).filter(
      (alert) =>
        alert.labels.alertname === name && Object.entries(labels).every(([key, value]) => alert.labels[key] === value),
    );
  }

  /** Waits until alert `name` fires with labels including `labels`; returns it. */
  firing(name: string, labels: Record<string, string> = {}, timeoutMs = 30_000): Promise<Alert> {
    return eventually(
      async () => (await this.active(name, labels)).find((alert) => alert.state === 'firing'),
      timeoutMs,
      `alert ${name} ${JSON.stringify(labels)} firing`,
    );
  }

  /** The value of an instant query's first sample, or null when the result is empty. */
  async query(expr: string): Promise<number | null> {
    const response = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { data: { result: Array<{ value: [number, string] }> } };
    const first = body.data.result[0];
    return first ? Number(first.value[1]) : null;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Prometheus's last log lines, for a failing test's message. */
  log(): string {
    return this.output();
  }
}
