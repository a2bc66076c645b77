/**
 * The stacks old-style zip packages run on (stack name → image) and the stack each `runtime`
 * picks when an upload names no stack (FERRUM_WORKER_STACKS, FERRUM_WORKER_RUNTIMES).
 */

export const DEFAULT_STACKS =
  'node-20=node:20-alpine,python-3.12=python:3.12-alpine,ruby-3.3=ruby:3.3-alpine,php-8.3=php:8.3-cli-alpine,' +
  'java-21=eclipse-temurin:21-jre-alpine,go-1.22=golang:1.22-alpine,busybox=busybox:latest';

/**
 * The runtimes the official clients send, each on the stack of its language. A package of
 * runtime `sh` runs on the stack of the program its script starts (`__runner__.sh` starts
 * `ruby`, `node`, `java`...; see src/worker/codes/script-interpreter.ts); `sh` itself names the
 * stack of a script that starts none of them: the Node stack, where every package ran before.
 */
export const DEFAULT_RUNTIMES =
  'python=python-3.12,ruby=ruby-3.3,node=node-20,java=java-21,php=php-8.3,go=go-1.22,binary=busybox,sh=node-20';

/** "name=value,name=value" → { name: value }; `setting` names the variable in errors. */
function pairsFrom(raw: string, setting: string, shape: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    if (at <= 0 || at === entry.length - 1) throw new Error(`${setting} entries must be ${shape}, got "${entry}"`);
    pairs[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return pairs;
}

/** The runtimes an operator's FERRUM_WORKER_RUNTIMES names (none when unset). */
export function runtimesNamedIn(raw: string | undefined): string[] {
  return raw === undefined ? [] : Object.keys(pairsFrom(raw, 'FERRUM_WORKER_RUNTIMES', 'runtime=stack'));
}

export function stacksFrom(raw: string): Record<string, string> {
  return pairsFrom(raw, 'FERRUM_WORKER_STACKS', 'name=image');
}

/**
 * Runtime → stack. A table the operator gives must name configured stacks only. In the
 * built-in table, a runtime whose stack is not configured (FERRUM_WORKER_STACKS was changed)
 * runs on the default stack, as every runtime did before runtimes picked stacks.
 */
export function runtimeStacksFrom(
  raw: string | undefined,
  stacks: Record<string, string>,
  defaultStack: string,
): Record<string, string> {
  const runtimes = pairsFrom(raw ?? DEFAULT_RUNTIMES, 'FERRUM_WORKER_RUNTIMES', 'runtime=stack');
  for (const [runtime, stack] of Object.entries(runtimes)) {
    if (Object.hasOwn(stacks, stack)) continue;
    if (raw !== undefined)
      throw new Error(
        `FERRUM_WORKER_RUNTIMES: runtime ${runtime} names stack ${stack}, which FERRUM_WORKER_STACKS lacks`,
      );
    runtimes[runtime] = defaultStack;
  }
  return runtimes;
}
