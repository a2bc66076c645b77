import { loadLua } from '../../core/lua.js';

/** The code package scripts, from lua/; their keys are WorkerKeys' (src/worker/keys.ts). */
const codeScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  saveRevision: codeScript('save-code-revision'),
  deleteCode: codeScript('delete-code'),
  pruneRevision: codeScript('prune-revision'),
};
