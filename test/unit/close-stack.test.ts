import { describe, expect, it } from 'vitest';
import { CloseStack } from '../../controller/close-stack.js';

describe('the composition root closes what it opened', () => {
  it('in the reverse order of opening, once however often close() is called', async () => {
    const closed: string[] = [];
    const stack = new CloseStack();
    for (const name of ['redis', 'bus', 'worker', 'mq']) stack.opened(name, (service) => void closed.push(service));
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(closed).toEqual(['mq', 'worker', 'bus', 'redis']);
  });

  it('closes every service when one fails to close, then reports the first failure', async () => {
    const closed: string[] = [];
    const stack = new CloseStack();
    stack.opened('redis', () => void closed.push('redis'));
    stack.opened('bus', async () => {
      throw new Error('bus would not close');
    });
    stack.opened('worker', async () => {
      throw new Error('worker would not close');
    });
    stack.opened('mq', () => void closed.push('mq'));
    await expect(stack.close()).rejects.toThrow('worker would not close');
    expect(closed).toEqual(['mq', 'redis']);
  });

  it('hands back what it records', () => {
    const service = { name: 'store' };
    expect(new CloseStack().opened(service, () => undefined)).toBe(service);
  });
});
