export const QUEUE_TYPES = ['pull', 'unicast', 'multicast'] as const;
export type QueueType = (typeof QUEUE_TYPES)[number];

export interface Subscriber {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

/** Push delivery settings of a unicast or multicast queue. */
export interface PushSettings {
  subscribers: Subscriber[];
  retries: number;
  retries_delay: number;
  error_queue?: string;
  /** Maximum deliveries per second; absent means unlimited. */
  rate?: number;
}

export interface DeadLetter {
  queue_name: string;
  max_reservations: number;
}

export interface Alert {
  type: 'fixed' | 'progressive';
  trigger: number;
  direction: 'asc' | 'desc';
  queue: string;
  snooze?: number;
}

/** What a client can set on a queue. */
export interface QueueSettings {
  type: QueueType;
  messageTimeout: number;
  messageExpiration: number;
  push?: PushSettings;
  deadLetter?: DeadLetter;
  alerts?: Alert[];
}

export interface QueueInfo extends QueueSettings {
  projectId: string;
  name: string;
  /** Available + delayed + reserved messages. */
  size: number;
  /** Messages ever posted. */
  totalMessages: number;
  createdAt: number;
  updatedAt: number;
}

export interface Message {
  id: string;
  body: string;
  reservedCount: number;
  pushHeaders?: Record<string, string>;
}

export interface ReservedMessage extends Message {
  reservationId: string;
}

export interface NewMessage {
  body: string;
  delay?: number;
  pushHeaders?: Record<string, string>;
  /** Seconds until the message expires; the queue's message_expiration when absent (version 3 cannot set it). */
  expiresIn?: number;
}
