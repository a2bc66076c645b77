import { loadLua } from '../../core/lua.js';

/** The task scripts, from lua/ (most include lua/task-lib.lua first); the keys are WorkerKeys' (src/worker/keys.ts). */
const taskScript = (name: string) => loadLua(new URL('./lua/', import.meta.url).href, name);

export const scripts = {
  createTasks: taskScript('create-tasks'),
  addTaskJobs: taskScript('add-task-jobs'),
  listTasks: taskScript('list-tasks'),
  setStatus: taskScript('set-task-status'),
  cancelTask: taskScript('cancel-task'),
  appendLog: taskScript('append-log'),
  appendLogInOrder: taskScript('append-log-in-order'),
  takeTask: taskScript('take-task'),
  markPulling: taskScript('mark-task-pulling'),
  setProgress: taskScript('set-task-progress'),
  expireTasks: taskScript('expire-tasks'),
  resumeTaskQueue: taskScript('resume-task-queue'),
  repairQueuedTasks: taskScript('repair-queued-tasks'),
};
