import { describe, expect, it } from 'vitest';
import { loadConfig, RUNNER_METRICS_PORT } from '../../src/core/config.js';

describe("a runner's metrics port", () => {
  it("has its own default, apart from the controller's", () => {
    const config = loadConfig({});
    expect(config.runner.metricsPort).toBe(RUNNER_METRICS_PORT);
    expect(config.runner.metricsPort).not.toBe(config.port);
  });

  it('is FERRUM_RUNNER_METRICS_PORT, else PORT (older setups)', () => {
    expect(loadConfig({ PORT: '9100' }).runner.metricsPort).toBe(9100);
    expect(loadConfig({ PORT: '9100', FERRUM_RUNNER_METRICS_PORT: '0' }).runner.metricsPort).toBe(0);
  });

  it('refuses a value that is not a port number', () => {
    expect(() => loadConfig({ FERRUM_RUNNER_METRICS_PORT: 'http' })).toThrow(/FERRUM_RUNNER_METRICS_PORT must be/);
  });
});
