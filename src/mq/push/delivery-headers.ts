import type { Message, Subscriber } from '../types.js';

const USER_AGENT = 'Ferrum-MQ-Push/1';

// The service headers, each sent as Service-<name> and, for subscribers written for the
// original platform, Iron-<name>.
const SERVICE_PREFIXES = ['Service-', 'Iron-'];

export interface DeliveryIdentity {
  reservationId: string;
  /** Where the subscriber can read and acknowledge the message (version 3 API). */
  messageUrl: string;
}

/**
 * Headers of one delivery: defaults, then the subscriber's headers, then the message's push
 * headers (later ones win, names compared case-insensitively), then the service headers.
 */
export function deliveryHeaders(
  subscriber: Subscriber,
  message: Message,
  identity: DeliveryIdentity,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', 'user-agent': USER_AGENT };
  for (const source of [subscriber.headers, message.pushHeaders]) {
    for (const [name, value] of Object.entries(source ?? {})) headers[name.toLowerCase()] = value;
  }
  const service: Record<string, string> = {
    'Message-Id': message.id,
    'Reservation-Id': identity.reservationId,
    'Subscriber-Name': subscriber.name,
    'Subscriber-Message-Url': identity.messageUrl,
  };
  for (const prefix of SERVICE_PREFIXES) {
    for (const [name, value] of Object.entries(service)) headers[`${prefix}${name}`.toLowerCase()] = value;
  }
  return headers;
}
