import { loadLua } from '../core/lua.js';

/** Every cache item script (in lua/) includes the shared functions of cache-state.lua first. */
const cacheScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  put: cacheScript('put'),
  unhold: cacheScript('unhold'),
  get: cacheScript('get'),
  increment: cacheScript('increment'),
  deleteItem: cacheScript('delete-item'),
  dropItems: cacheScript('drop-items'),
  size: cacheScript('size'),
  sweep: cacheScript('sweep'),
};
