import { loadLua } from '../../core/lua.js';

/** Push scripts (they include ../common.lua and push-common.lua) take the queue's keys followed by the message's push status hash. */
export const pushScripts = {
  finishRound: loadLua(import.meta.url, 'finish-round'),
  acknowledge: loadLua(import.meta.url, 'acknowledge'),
};
