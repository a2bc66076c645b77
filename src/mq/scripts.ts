import { LuaScript, loadLua } from '../core/lua.js';

const common = loadLua(import.meta.url, 'common').source;

/**
 * A queue script: common.lua (key names, maintain(), checks), then `prelude` (more shared Lua),
 * then the script `<name>.lua` from the folder of `moduleUrl`.
 */
export function queueScript(name: string, moduleUrl: string = import.meta.url, prelude = ''): LuaScript {
  return new LuaScript(name, `${common}\n${prelude}\n${loadLua(moduleUrl, name).source}`);
}

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
