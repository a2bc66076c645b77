import { loadLua } from '../../core/lua.js';

/** The cluster scripts, from lua/; their keys are WorkerKeys' (src/worker/keys.ts). */
const clusterScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  updateCluster: clusterScript('update-cluster'),
  updateInstance: clusterScript('update-instance'),
};
