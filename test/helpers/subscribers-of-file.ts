import { afterAll } from 'vitest';
import { TestSubscriber } from './push-subscriber.js';

/** A starter of TestSubscribers for a test file: each one it starts is stopped after the file's tests. */
export function useSubscribers(): (...args: Parameters<typeof TestSubscriber.start>) => Promise<TestSubscriber> {
  const started: TestSubscriber[] = [];
  afterAll(async () => {
    await Promise.all(started.map((subscriber) => subscriber.stop()));
  });
  return async (...args) => {
    const subscriber = await TestSubscriber.start(...args);
    started.push(subscriber);
    return subscriber;
  };
}
