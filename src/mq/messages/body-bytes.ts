import type { Message } from '../types.js';

/**
 * A message's size for budgets and batching: its body's byte length when it was read as bytes
 * (push delivery), else its text's length (no encoding just to measure it).
 */
export function bodySizeOf(message: Message): number {
  return message.bytes ? message.bytes.length : message.body.length;
}
