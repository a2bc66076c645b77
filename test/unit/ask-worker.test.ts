import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { askWorker, type AskedWorker } from '../../controller/cluster/ask-worker.js';
import type { PrimaryMessage } from '../../controller/cluster/messages.js';

/** A worker's IPC side as the primary sees it: it answers `drain` with `drained`, and can exit. */
class AnsweringWorker extends EventEmitter {
  connected = true;
  isConnected(): boolean {
    return this.connected;
  }
  send(message: PrimaryMessage): boolean {
    if (message.ferrum === 'drain') setImmediate(() => this.emit('message', { ferrum: 'drained' }));
    return true;
  }
  exit(): void {
    this.connected = false;
    this.emit('exit', 0, null);
  }
}

const asked = (worker: AnsweringWorker) => worker as unknown as AskedWorker;

describe('asking an HTTP worker', () => {
  it('leaves no listener behind once answered, however often it is asked', async () => {
    const worker = new AnsweringWorker();
    for (let i = 0; i < 20; i++) await askWorker(asked(worker), { ferrum: 'drain' }, 'drained');
    expect(worker.listenerCount('message')).toBe(0);
    expect(worker.listenerCount('exit')).toBe(0);
  });

  it('leaves no listener behind when the worker exits before answering', async () => {
    const worker = new AnsweringWorker();
    const stopped = askWorker(asked(worker), { ferrum: 'stop' }, null);
    const waiting = askWorker(asked(worker), { ferrum: 'gather', id: 1 }, 'gathered');
    expect(worker.listenerCount('exit')).toBe(2);
    worker.exit();
    await Promise.all([stopped, waiting]);
    expect(worker.listenerCount('message')).toBe(0);
    expect(worker.listenerCount('exit')).toBe(0);
  });

  it('resolves at once for a worker already disconnected', async () => {
    const worker = new AnsweringWorker();
    worker.connected = false;
    await askWorker(asked(worker), { ferrum: 'drain' }, 'drained');
    expect(worker.listenerCount('message') + worker.listenerCount('exit')).toBe(0);
  });
});
