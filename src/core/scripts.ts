import { loadLua } from './lua.js';

/** The shared scripts of src/core; their files are in lua/ (clock.lua is a library others include). */
const coreScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  boundedCounter: coreScript('bounded-counter'),
  boundedIndex: coreScript('bounded-index'),
  remove: coreScript('remove'),
};
