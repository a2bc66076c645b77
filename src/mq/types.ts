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

/** An alert as a client gives it. */
export interface AlertSpec {
  type: 'fixed' | 'progressive';
  trigger: number;
  direction: 'asc' | 'desc';
  queue: string;
  snooze?: number;
}

/** A stored alert: a spec with its id. */
export interface Alert extends AlertSpec {
  id: string;
}

/** What a client can set on a queue. */
export interface QueueSettings {
  type: QueueType;
  messageTimeout: number;
  messageExpiration: number;
  push?: PushSettings;
  deadLetter?: DeadLetter;
  alerts?: Alert[];
  /** The API version (1 or 3) that last configured the queue: push deliveries link to its message URL. */
  api?: 1 | 3;
}

export interface QueueInfo extends QueueSettings {
  projectId: string;
  name: string;
  /** Available + delayed + reserved messages. */
  size: number;
  /** Messages a reserve may hand out now. */
  ready: number;
  /** Messages posted with a delay that has not passed yet. */
  delayed: number;
  /** Messages handed out by a reserve and neither deleted nor returned yet. */
  reserved: number;
  /** Messages ever posted. */
  totalMessages: number;
  createdAt: number;
  updatedAt: number;
}

export interface Message {
  id: string;
  body: string;
  /** The body's UTF-8 bytes, when it was read as bytes (push delivery passes them on as they are). */
  bytes?: Buffer;
  reservedCount: number;
  pushHeaders?: Record<string, string>;
  /** Hops it may still travel (messages/hop-budget.ts); absent: a client's message, the whole budget. */
  hopsLeft?: number;
  /** Reservation timeout (s): the one the message was posted with (version 1), else the queue's. */
  timeout?: number;
}

export interface ReservedMessage extends Message {
  reservationId: string;
}

export interface NewMessage {
  /** Text, or its UTF-8 bytes when the same body is posted many times (an `ironmq:///` fan-out encodes it once). */
  body: string | Buffer;
  delay?: number;
  pushHeaders?: Record<string, string>;
  /** Seconds until the message expires; the queue's message_expiration when absent (version 3 cannot set it). */
  expiresIn?: number;
  /** Reservation timeout (s) of this message (version 1); the queue's message_timeout when absent. */
  timeout?: number;
}

/** Where the message queue's background work reports what it drops. */
export interface MqLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * Reserved messages as pieces of JSON text, position by position, for an answer written without
 * decoding the bodies: ids (digits) and reservation ids (hex digits) this server made, reserved
 * counts (digits), bodies as JSON string literals (byte for byte JSON.stringify's), push headers as
 * JSON objects' text ('' for none) or null when no message has any.
 */
export interface ReservedJsonPieces {
  ids: string[];
  reservationIds: string[];
  reservedCounts: string[];
  bodies: string[];
  pushHeaders: string[] | null;
}

export interface ReserveResult {
  /** How many messages were reserved. */
  count: number;
  /** The reserved messages' fields as pieces of JSON text, read without decoding a body. */
  readonly jsonPieces: ReservedJsonPieces;
  messages: ReservedMessage[];
  /** Messages handed to the dead letter outbox by this reserve. */
  movedToDeadLetter: number;
  /** Messages this reserve found expired and dropped. */
  expired: number;
  /** When nothing was reserved: the epoch ms at which something becomes available by itself, or -1. */
  nextDueMs: number;
  /** The timeout asked for, else the queue's message_timeout (s). */
  timeout: number;
  /**
   * The outcome (Outcome, ok = deleted) of each message the reserve deleted first
   * (ack-and-next), in the order given; empty when none was given.
   */
  deleteOutcomes: number[];
}
