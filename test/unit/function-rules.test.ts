import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/core/errors.js';
import {
  checkAppName,
  checkConfig,
  checkHeaders,
  checkImage,
  checkMaxConcurrency,
  checkMemory,
  checkRoutePath,
  checkSecret,
  checkSeconds,
} from '../../src/functions/apps/rules.js';

// The rules apps and routes must follow, one class of bad input each: the refusal is a 400 of
// the functions' error table, its message naming the field and what it must be.

/** The error `check` throws, as status, code and message. */
function refusal(check: () => void): { status: number; code: string; message: string } {
  try {
    check();
  } catch (error) {
    if (error instanceof HttpError) return { status: error.statusCode, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

/** A refusal as status 400 with `code` and `message`. */
const badRequest = (code: string, message: string) => ({ status: 400, code, message });

describe('function app and route rules', () => {
  it('app names: 1 to 30 letters, digits, "_" and "-"', () => {
    expect(() => checkAppName('my_app-2')).not.toThrow();
    for (const bad of ['', 'a'.repeat(31), 'has space', 'dot.ted'])
      expect(refusal(() => checkAppName(bad))).toEqual(
        badRequest('fn_app_name_invalid', 'app name must be 1 to 30 characters of letters, digits, "_" and "-"'),
      );
  });

  it('route paths: absolute, no empty, dot or trailing segment', () => {
    expect(() => checkRoutePath('/a/b-c.d~e')).not.toThrow();
    for (const bad of ['a', '/', '/a/', '//a', '/a b', `/${'a'.repeat(256)}`])
      expect(refusal(() => checkRoutePath(bad)).code, bad).toBe('fn_route_path_invalid');
    for (const bad of ['/a/..', '/./a'])
      expect(refusal(() => checkRoutePath(bad))).toEqual(
        badRequest('fn_route_path_dot_segments', 'route path may not have "." or ".." segments'),
      );
  });

  it('route images, memory, timeouts and concurrency within their bounds', () => {
    expect(() => checkImage('registry:5000/team/fn:1.0')).not.toThrow();
    expect(refusal(() => checkImage('-bad')).code).toBe('fn_route_image_invalid');
    expect(refusal(() => checkMemory(4, 1024)).message).toBe('route memory must be from 8 to 1024 MiB');
    expect(refusal(() => checkMemory(2048, 1024)).code).toBe('fn_route_memory_range');
    expect(refusal(() => checkSeconds('idle_timeout', 0, 3600)).message).toBe(
      'route idle_timeout must be from 1 to 3600 seconds',
    );
    expect(refusal(() => checkMaxConcurrency(101)).message).toBe('route max_concurrency must be from 1 to 100');
  });

  it('route secrets: empty (none), or 16 to 512 characters', () => {
    expect(() => checkSecret('')).not.toThrow();
    expect(refusal(() => checkSecret('short')).message).toBe('route secret must be at least 16 characters');
    expect(refusal(() => checkSecret('s'.repeat(513))).message).toBe('route secret must be at most 512 characters');
  });

  it('config keys are variable names, values bounded; header names are tokens, values one line', () => {
    expect(() => checkConfig('app config', { GREETING_1: 'hi' })).not.toThrow();
    expect(refusal(() => checkConfig('route config', { '1ST': 'x' })).message).toBe(
      'route config key "1ST" must be a variable name: letters, digits and "_", not starting with a digit',
    );
    expect(refusal(() => checkConfig('app config', { BIG: 'x'.repeat(64 * 1024 + 1) })).message).toBe(
      'app config value of "BIG" is longer than 65536 characters',
    );
    expect(() => checkHeaders({ 'X-Team': 'core' })).not.toThrow();
    expect(refusal(() => checkHeaders({ 'bad name': 'x' })).message).toBe(
      'route headers: "bad name" is not a valid header name',
    );
    expect(refusal(() => checkHeaders({ 'X-Split': 'a\r\nb' })).code).toBe('fn_route_header_value_invalid');
  });
});
