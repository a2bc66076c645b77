import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';

describe('the runtime → stack table (FERRUM_WORKER_RUNTIMES)', () => {
  it('puts each runtime of the official clients on a stack of the built-in set', () => {
    const { runtimes, stacks } = loadConfig({}).worker;
    expect(runtimes).toEqual({
      python: 'python-3.12',
      ruby: 'ruby-3.3',
      node: 'node-20',
      java: 'java-21',
      php: 'php-8.3',
      go: 'go-1.22',
      binary: 'busybox',
      sh: 'node-20',
    });
    for (const stack of Object.values(runtimes)) expect(stacks).toHaveProperty(stack);
  });

  it('runs a built-in runtime whose stack FERRUM_WORKER_STACKS lacks on the default stack', () => {
    const { runtimes } = loadConfig({
      FERRUM_WORKER_STACKS: 'py=python:3.12-alpine,main=node:20-alpine',
      FERRUM_WORKER_DEFAULT_STACK: 'main',
    }).worker;
    expect(runtimes.python).toBe('main');
    expect(runtimes.sh).toBe('main');
  });

  it('takes a table of its own, whose stacks must be configured', () => {
    const env = { FERRUM_WORKER_STACKS: 'py=python:3.12-alpine,sh=busybox', FERRUM_WORKER_DEFAULT_STACK: 'sh' };
    expect(loadConfig({ ...env, FERRUM_WORKER_RUNTIMES: 'python=py, sh=sh, bash=sh' }).worker.runtimes).toEqual({
      python: 'py',
      sh: 'sh',
      bash: 'sh',
    });
    expect(() => loadConfig({ ...env, FERRUM_WORKER_RUNTIMES: 'ruby=ruby-3.3' })).toThrow(
      'FERRUM_WORKER_RUNTIMES: runtime ruby names stack ruby-3.3, which FERRUM_WORKER_STACKS lacks',
    );
    expect(() => loadConfig({ ...env, FERRUM_WORKER_RUNTIMES: 'python' })).toThrow(
      'FERRUM_WORKER_RUNTIMES entries must be runtime=stack, got "python"',
    );
  });
});
