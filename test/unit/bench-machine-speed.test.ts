import { describe, expect, it } from 'vitest';
import { describeSpeed } from '../../scripts/machine-speed.mjs';

const format = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 0 });

describe("the bench report header's machine speed", () => {
  it('names each rate measured at the start of the run and how', () => {
    const text = describeSpeed(
      { redis_ping_per_s: 98_000.4, redis_set_per_s: 91_500, node_http_hello_per_s: 24_000 },
      format,
    );
    expect(text).toContain('Redis PING 98,000/s and SET 91,500/s (redis-benchmark');
    expect(text).toContain('bare node:http hello 24,000/s (wrk');
  });

  it('says which part could not be measured, and why', () => {
    const text = describeSpeed(
      { node_http_hello_per_s: 24_000, 'redis unmeasured': 'spawn redis-benchmark ENOENT' },
      format,
    );
    expect(text).toContain('Redis PING n/a and SET n/a');
    expect(text).toContain('redis unmeasured: spawn redis-benchmark ENOENT');
  });
});
