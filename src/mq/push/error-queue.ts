import type { Message, QueueInfo } from '../types.js';
import type { SubscriberStatus } from './status.js';

/**
 * The JSON message reporting a push message whose delivery failed for good to at least one
 * subscriber, or null when none failed. Lists every subscriber tried with its last answer.
 */
export function errorQueueMessage(
  queue: QueueInfo,
  message: Message,
  statuses: Map<string, SubscriberStatus>,
): string | null {
  const failed = [...statuses.values()].some((status) => status.status === 'error');
  if (!failed) return null;
  return JSON.stringify({
    source_msg_id: message.id,
    source_queue: queue.name,
    body: message.body,
    headers: message.pushHeaders ?? {},
    subscribers: [...statuses].map(([name, status]) => ({
      name,
      url: status.url,
      status: status.status,
      status_code: status.status_code,
      error: status.error,
    })),
  });
}
