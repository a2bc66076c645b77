/** The message queue's limits and defaults (spec: Limits). */
export const LIMITS = {
  /** n for reserve and peek. */
  maxMessagesPerCall: 100,
  defaultTimeoutSeconds: 60,
  maxTimeoutSeconds: 86_400,
  maxWaitSeconds: 30,
  maxDelaySeconds: 604_800,
  defaultExpirationSeconds: 604_800,
  maxExpirationSeconds: 2_592_000,
  maxBatchDelete: 100,
  minReservations: 1,
  maxReservations: 1000,
  defaultMaxReservations: 10,
  maxPushHeaders: 5,
  maxPushHeaderNameBytes: 64,
  maxPushHeaderValueBytes: 1024,
  defaultRetries: 3,
  maxRetries: 100,
  defaultRetriesDelaySeconds: 60,
  defaultPerPage: 30,
  maxPerPage: 100,
  maxQueueNameBytes: 255,
  /** Subscribers of one push queue (each message costs one delivery per subscriber). */
  maxSubscribers: 64,
  /**
   * Hops a message Ferrum itself produces may still travel (see messages/hop-budget.ts): a
   * client's message starts with this many.
   */
  hopBudget: 10,
  /** Bytes of the failed message's body a push error report embeds; the rest is cut. */
  maxErrorReportBodyBytes: 4096,
} as const;

/**
 * Header names the service sets on push deliveries itself, and the ones that frame the HTTP
 * request (a tenant setting them could smuggle requests); compared case-insensitively.
 */
export const RESERVED_PUSH_HEADER_NAMES = [
  'host',
  'connection',
  'transfer-encoding',
  'content-length',
  'content-type',
  'user-agent',
  'service-message-id',
  'service-reservation-id',
  'service-subscriber-name',
  'service-subscriber-message-url',
  'ferrum-hops-left',
];
