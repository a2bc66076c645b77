/* eslint-disable @typescript-eslint/no-explicit-any -- the pages read the other fields of these records loosely */
// Shapes of the API answers the dashboard reads (the wire shapes of api/), for JSDoc in web/.

export interface Queue {
  name: string;
  project_id: string;
  type?: 'pull' | 'multicast' | 'unicast';
  size: number;
  total_messages: number;
  /** Ferrum extension: size by state. */
  ready?: number;
  delayed?: number;
  reserved?: number;
  message_timeout: number;
  message_expiration: number;
  push?: {
    subscribers?: { name: string; url: string; headers?: Record<string, string> }[];
    retries?: number;
    retries_delay?: number;
    error_queue?: string;
  };
  dead_letter?: { queue_name: string; max_reservations: number };
  alerts?: { type: string; trigger: number; direction?: string; queue: string; snooze?: number }[];
}

export interface QueueChanges {
  message_timeout?: number;
  message_expiration?: number;
}

export interface Message {
  id: string;
  body: string;
  reserved_count?: number;
  reservation_id?: string;
}

export interface Task {
  id: string;
  code_id: string;
  code_name: string;
  code_rev: string;
  status: string;
  msg?: string;
  created_at: string;
  start_time?: string;
  end_time?: string;
  duration?: number;
  payload?: string;
  cluster?: string;
  percent?: number;
  original_task_id?: string;
  retry_task_id?: string;
  [field: string]: any;
}

export interface Code {
  id: string;
  name: string;
  image?: string;
  stack?: string;
  command?: string;
  rev: number;
  latest_change: string;
  /** -1 while the package's task queue is paused. */
  max_concurrency?: number;
  retries?: number;
  retries_delay?: number;
}

export interface Cluster {
  id: string;
  name?: string;
  runners_total?: number;
  [field: string]: any;
}

export interface Project {
  id: string;
  name: string;
  user_id?: string;
  [field: string]: any;
}

export interface History {
  sample_interval_seconds: number;
  task_outcomes: ({ time: string } & Record<string, number>)[];
  queue_depth: { time: string; total: number; queues: Record<string, number> }[];
}
