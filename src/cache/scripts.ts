import fs from 'node:fs';
import { loadLua, LuaScript } from '../core/lua.js';

const prelude = fs.readFileSync(new URL('./cache-state.lua', import.meta.url), 'utf8');

/** A cache script with the shared functions of cache-state.lua in front of it. */
function cacheScript(name: string): LuaScript {
  return new LuaScript(name, `${prelude}\n${loadLua(import.meta.url, name).source}`);
}

export const scripts = {
  put: cacheScript('put'),
  get: cacheScript('get'),
  increment: cacheScript('increment'),
  deleteItem: cacheScript('delete-item'),
  dropItems: cacheScript('drop-items'),
  size: cacheScript('size'),
  sweep: cacheScript('sweep'),
  list: cacheScript('list'),
};
