import { LIMITS } from '../limits.js';
import type { Message, QueueInfo } from '../types.js';
import type { SubscriberStatus } from './status.js';

/**
 * The JSON message reporting a push message whose delivery failed for good to at least one
 * subscriber, or null when none failed. Lists every subscriber tried with its last answer. The
 * body is cut past LIMITS.maxErrorReportBodyBytes (`body_truncated` then says so), so a report
 * of a report never grows.
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
    ...reportedBody(message.body),
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

function reportedBody(body: string): { body: string; body_truncated?: true } {
  const maxBytes = LIMITS.maxErrorReportBodyBytes;
  if (body.length <= maxBytes / 4 || Buffer.byteLength(body) <= maxBytes) return { body };
  // Cut on a character boundary: a code point cut in two would end as U+FFFD, past the limit.
  const cut = Buffer.from(body)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { body: cut, body_truncated: true };
}
