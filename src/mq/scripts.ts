import { loadLua } from '../core/lua.js';

/** Every queue script includes common.lua (key names, maintain(), checks) first. */
const queueScript = (name: string) => loadLua(import.meta.url, name);

export const scripts = {
  postMessages: queueScript('post-messages'),
  reserve: queueScript('reserve'),
  peek: queueScript('peek'),
  readMessage: queueScript('read-message'),
  deleteMessages: queueScript('delete-messages'),
  touch: queueScript('touch'),
  release: queueScript('release'),
  queueInfo: queueScript('queue-info'),
  saveQueue: queueScript('save-queue'),
  sweep: queueScript('sweep'),
  checkAlerts: queueScript('check-alerts'),
};

/** Outcomes of the scripts' reservation checks (common.lua). */
export const MISSING_QUEUE = -1;
export const Outcome = { ok: 0, notFound: 1, timedOut: 2, reserved: 3, notReserved: 4 } as const;

/** A reservation id that stands for whatever reservation a message has (version 1 has none). */
export const ANY_RESERVATION = '*';
