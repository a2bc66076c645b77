import fs from 'node:fs';
import { LuaScript } from '../../core/lua.js';

const library = fs.readFileSync(new URL('./task-lib.lua', import.meta.url), 'utf8');

/** Loads `<name>.lua` of this folder with the task scripts' shared functions (task-lib.lua) before it. */
export function loadTaskLua(name: string): LuaScript {
  const source = fs.readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8');
  return new LuaScript(name, `${library}\n${source}`);
}
