// Shapes of the API answers the dashboard reads, for JSDoc in web/: the shared client's types
// (client/responses.ts, from api/'s schemas), under the names the pages use.
export type { Queue, Message, Task, Code, Cluster, Project, History } from '../client/responses';

export interface QueueChanges {
  message_timeout?: number;
  message_expiration?: number;
}
