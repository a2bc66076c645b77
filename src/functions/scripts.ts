import { loadLua } from '../core/lua.js';

/** The functions platform's scripts live in lua/ beside this file. */
const fnScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  createApp: fnScript('create-app'),
  deleteApp: fnScript('delete-app'),
  patchRecord: fnScript('patch-record'),
  createRoute: fnScript('create-route'),
  deleteRoute: fnScript('delete-route'),
  loadRoute: fnScript('load-route'),
  startCall: fnScript('start-call'),
  finishCall: fnScript('finish-call'),
  recordCalls: fnScript('record-calls'),
  reclaimCalls: fnScript('reclaim-calls'),
  pushCall: fnScript('push-call'),
  takeCall: fnScript('take-call'),
  withdrawCall: fnScript('withdraw-call'),
  countCallBytes: fnScript('count-call-bytes'),
  admitCall: fnScript('admit-call'),
  reserveHotContainers: fnScript('reserve-hot-containers'),
  releaseHotContainers: fnScript('release-hot-containers'),
};

/** The change a patch-record script applies: record fields, and per map hash the keys set and removed. */
export interface RecordPatch {
  fields: Record<string, string>;
  unset: string[];
  maps: { set: Record<string, string>; remove: string[] }[];
}
