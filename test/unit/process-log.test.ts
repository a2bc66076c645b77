import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { chooseLogFormat } from '../../src/core/process-log.js';

describe('the log format', () => {
  it('is pretty on a terminal and JSON otherwise, unless FERRUM_LOG_FORMAT says which', () => {
    const auto = loadConfig({}).logFormat;
    expect(auto).toBe('auto');
    expect(chooseLogFormat(auto, true)).toBe('pretty');
    expect(chooseLogFormat(auto, false)).toBe('json');
    const json = loadConfig({ FERRUM_LOG_FORMAT: 'json' }).logFormat;
    expect(chooseLogFormat(json, true)).toBe('json');
    const pretty = loadConfig({ FERRUM_LOG_FORMAT: 'pretty' }).logFormat;
    expect(chooseLogFormat(pretty, false)).toBe('pretty');
  });

  it('refuses a format it does not know, naming the setting', () => {
    expect(() => loadConfig({ FERRUM_LOG_FORMAT: 'yaml' })).toThrow(
      'FERRUM_LOG_FORMAT must be one of auto, json, pretty, got "yaml"',
    );
  });
});
