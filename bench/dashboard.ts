// Dashboard load time on localhost: how long Debian's Chromium takes from navigation to a usable
// page (the sign-in form; after sign-in, the overview with its charts), cold cache each time.
// Run with `npm run bench:dashboard`; BENCH_LOADS sets the number of loads (default 20).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startController } from '../controller/main.js';
import { loadConfig } from '../src/core/config.js';
import { startManagedRedis } from '../src/core/managed-redis.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { figure, sized } from './lib/report.js';

const LOADS = sized('BENCH_LOADS', 20, 1);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-bench-dashboard-'));
  const redis = await startManagedRedis({ dataDir, persistent: false });
  const config = loadConfig({
    PORT: '0',
    REDIS_URL: redis.url,
    FERRUM_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    FERRUM_BOOTSTRAP_PASSWORD: 'pw',
  });
  const running = await startController(config);
  const browser = await launchBrowser();
  const signIn: number[] = [];
  const overview: number[] = [];
  try {
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      let started = performance.now();
      await page.goto(running.url + '/');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      signIn.push(performance.now() - started);
      await page.getByLabel('E-mail').fill('admin@ferrum.local');
      await page.getByLabel('Password').fill('pw');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      started = performance.now();
      await page.reload();
      await page.getByRole('img', { name: /Tasks finished per minute/ }).waitFor();
      overview.push(performance.now() - started);
      await context.close();
    }
  } finally {
    await browser.close();
    await running.stop();
    await redis.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  for (const [name, samples] of [
    ['sign-in page ready', signIn],
    ['overview with charts (signed in)', overview],
  ] as const) {
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(
      `${name}: p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms over ${sorted.length} cold loads (target < 1000 ms)`,
    );
    figure(`${name}, cold load p99`, percentile(sorted, 99), 'ms', { better: 'lower', target: 1000 });
  }
  console.log(
    `load average: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
