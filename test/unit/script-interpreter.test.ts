import { describe, expect, it } from 'vitest';
import { runtimeStartedBy } from '../../src/worker/codes/script-interpreter.js';
import { shellScriptOf, uploadFrom, type StackSettings } from '../../src/worker/codes/upload-rules.js';

describe('the runtime a shell runner script starts', () => {
  const cases: Array<[string, string, string | undefined]> = [
    ['a plain call', 'ruby __runner__.rb "$@"\n', 'ruby'],
    ['after cd and environment', 'cd "$(dirname "$0")"\nLD_LIBRARY_PATH=. exec ruby -I. __runner__.rb "$@"\n', 'ruby'],
    ['a full path', '/usr/bin/python3 main.py\n', 'python'],
    ['through env', 'env NODE_ENV=production node index.js\n', 'node'],
    ['after &&', 'test -d lib && java -cp "lib/*" Worker\n', 'java'],
    ['the #! line', '#!/usr/bin/env php\n<?php echo 1;\n', 'php'],
    ['not in comments', '# runs node someday\nruby worker.rb\n', 'ruby'],
    ['nothing known', 'echo hello\n./worker\n', undefined],
    ['an argument is no program', 'echo node\n', undefined],
  ];
  for (const [label, script, runtime] of cases) {
    it(label, () => expect(runtimeStartedBy(script)).toBe(runtime));
  }
});

describe('runtime sh picks the stack of what its script starts', () => {
  const settings: StackSettings = {
    stacks: { 'node-20': 'node:20', 'ruby-3.3': 'ruby:3.3' },
    defaultStack: 'node-20',
    runtimes: { sh: 'node-20', ruby: 'ruby-3.3', node: 'node-20' },
    shellFollowsScript: true,
  };
  const zip = Buffer.from('zip');
  const data = { name: 'rb', runtime: 'sh', file_name: '__runner__.sh' };

  it('reads the script named by file_name of a runtime sh package naming no stack or image', () => {
    expect(shellScriptOf(data)).toBe('__runner__.sh');
    expect(shellScriptOf({ name: 'rb', runtime: 'sh', file_name: 'r.sh', stack: 'x' })).toBeUndefined();
    expect(shellScriptOf({ name: 'rb', runtime: 'ruby', file_name: 'r.rb' })).toBeUndefined();
    expect(shellScriptOf({ name: 'rb', runtime: 'sh', file_name: '' })).toBeUndefined();
  });

  it("runs on the stack of the started runtime, else on sh's; an operator's sh entry wins", () => {
    expect(uploadFrom(data, zip, settings, 'ruby').settings).toMatchObject({ stack: 'ruby-3.3', runtime: 'sh' });
    expect(uploadFrom(data, zip, settings, undefined).settings.stack).toBe('node-20');
    expect(uploadFrom(data, zip, settings, 'java').settings.stack).toBe('node-20');
    expect(uploadFrom(data, zip, { ...settings, shellFollowsScript: false }, 'ruby').settings.stack).toBe('node-20');
  });
});
