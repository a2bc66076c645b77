import { describe, expect, it } from 'vitest';
import { readThrough } from '../helpers/read-through.js';

class Counter {
  #count = 0;
  add(): number {
    return ++this.#count;
  }
}

describe('readThrough', () => {
  it('reads through to the current object: its methods (private fields too) and its class', () => {
    let current = new Counter();
    const counter = readThrough(() => current);
    expect(counter.add()).toBe(1);
    // isCluster(redis) is an instanceof check: a fixture of a Cluster client must pass it.
    expect(counter instanceof Counter).toBe(true);
    current = new Counter();
    expect(counter.add()).toBe(1);
  });
});
