import { loadLua } from '../core/lua.js';

/** Every cache item script includes the shared functions of cache-state.lua first. */
const cacheScript = (name: string) => loadLua(import.meta.url, name);

export const scripts = {
  put: cacheScript('put'),
  get: cacheScript('get'),
  increment: cacheScript('increment'),
  deleteItem: cacheScript('delete-item'),
  dropItems: cacheScript('drop-items'),
  size: cacheScript('size'),
  sweep: cacheScript('sweep'),
};
