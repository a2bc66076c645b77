import { loadLua } from '../../core/lua.js';
import { queueScript } from '../scripts.js';

const pushCommon = loadLua(import.meta.url, 'push-common').source;

/** Push scripts take the queue's keys followed by the message's push status hash. */
export const pushScripts = {
  finishRound: queueScript('finish-round', import.meta.url, pushCommon),
  acknowledge: queueScript('acknowledge', import.meta.url, pushCommon),
};
