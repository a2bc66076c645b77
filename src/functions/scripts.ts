import { loadLua } from '../core/lua.js';

export const scripts = {
  createApp: loadLua(import.meta.url, 'create-app'),
  deleteApp: loadLua(import.meta.url, 'delete-app'),
  patchRecord: loadLua(import.meta.url, 'patch-record'),
  createRoute: loadLua(import.meta.url, 'create-route'),
  deleteRoute: loadLua(import.meta.url, 'delete-route'),
  loadRoute: loadLua(import.meta.url, 'load-route'),
  startCall: loadLua(import.meta.url, 'start-call'),
  finishCall: loadLua(import.meta.url, 'finish-call'),
  recordCalls: loadLua(import.meta.url, 'record-calls'),
  reclaimCalls: loadLua(import.meta.url, 'reclaim-calls'),
  pushCall: loadLua(import.meta.url, 'push-call'),
  takeCall: loadLua(import.meta.url, 'take-call'),
  withdrawCall: loadLua(import.meta.url, 'withdraw-call'),
  countCallBytes: loadLua(import.meta.url, 'count-call-bytes'),
};

/** The change a patch-record script applies: record fields, and per map hash the keys set and removed. */
export interface RecordPatch {
  fields: Record<string, string>;
  unset: string[];
  maps: { set: Record<string, string>; remove: string[] }[];
}
