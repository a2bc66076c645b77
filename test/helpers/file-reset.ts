import { afterAll, beforeAll, vi } from 'vitest';
import { scriptClock } from '../../src/core/lua.js';

/**
 * Every lane's setup file (vitest.config.ts): a worker runs its files one after another in one
 * process, so each file starts with what a file may change of the process as a fresh process
 * has it (the script clock at now, real timers) and leaves the environment variables as it
 * found them.
 */
let environment: NodeJS.ProcessEnv = {};

beforeAll(() => {
  scriptClock.offsetMs = 0;
  vi.useRealTimers();
  environment = { ...process.env };
});

afterAll(() => {
  vi.useRealTimers();
  scriptClock.offsetMs = 0;
  for (const name of Object.keys(process.env)) if (!(name in environment)) delete process.env[name];
  Object.assign(process.env, environment);
});
