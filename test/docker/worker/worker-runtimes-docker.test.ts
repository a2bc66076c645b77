import { describe, expect, it } from 'vitest';
import { pythonClientForm, RUNTIME_STACKS_ENV } from '../../helpers/runtimes.js';
import { zipOf } from '../../helpers/worker.js';
import { useRunner, workerTestFile } from '../../helpers/worker-test-file.js';
import { scaled } from '../../helpers/pace.js';

// Zip packages naming only a runtime run on that runtime's stack, in real containers of images
// made of this machine's python3 and ruby (scripts/build-test-images.sh), with the command the
// runtime makes from file_name; each reads its payload from the -payload argument.
const { server, worker } = workerTestFile(RUNTIME_STACKS_ENV);
useRunner(server, RUNTIME_STACKS_ENV);

async function runToEnd(codeName: string, payload: string): Promise<string> {
  const id = await worker.queue(codeName, payload);
  const task = await worker.waitFor(id, ['complete', 'error', 'timeout'], 60_000);
  const log = await worker.log(id);
  expect(task.status, `${task.msg}\n${log}`).toBe('complete');
  return log;
}

const PYTHON_WORKER = `import json, sys
args = sys.argv[1:]
payload = json.load(open(args[args.index("-payload") + 1]))
print(sys.implementation.name, sys.version_info[0], "says", payload["greeting"])
`;

const RUBY_WORKER = `require "json"
payload = JSON.parse(File.read(ARGV[ARGV.index("-payload") + 1]))
puts "#{RUBY_ENGINE} #{RUBY_VERSION.split(".").first} says #{payload["greeting"]}"
`;

/** A runner script like the ones the Ruby and Java clients generate: cd to -d, then run. */
const SH_RUNNER = `#!/bin/sh
root() { while [ $# -gt 1 ]; do if [ "$1" = "-d" ]; then printf "%s" "$2"; break; fi; shift; done; }
cd "$(root "$@")"
echo "sh in $(pwd) says $(cat "$PAYLOAD_FILE")"
`;

/** A package naming only its runtime, and what its run prints. */
interface RuntimeCase {
  what: string;
  code: { name: string; runtime: string; file_name: string };
  files: Record<string, string>;
  zipMode?: number;
  payload: string;
  output: string;
}

describe('runtimes on their stacks', () => {
  it(
    "runs the Python client's upload with python on the python stack",
    async () => {
      const data = { name: 'py-greeter', runtime: 'python', file_name: 'hello.py' };
      const { raw, type } = pythonClientForm(data, await zipOf({ 'hello.py': PYTHON_WORKER }));
      const upload = await server.http.post(worker.path('/codes'), undefined, {
        raw,
        headers: { 'Content-Type': type },
      });
      expect(upload.status, upload.text).toBe(200);
      expect(await runToEnd('py-greeter', JSON.stringify({ greeting: 'hello' }))).toBe('cpython 3 says hello\n');
    },
    scaled(90_000),
  );

  it.each<RuntimeCase>([
    {
      what: 'a ruby package with ruby on the ruby stack',
      code: { name: 'rb-greeter', runtime: 'ruby', file_name: 'hello.rb' },
      files: { 'hello.rb': RUBY_WORKER },
      payload: JSON.stringify({ greeting: 'hi' }),
      output: 'ruby 3 says hi\n',
    },
    {
      what: 'a runner script (runtime sh, __runner__.sh) with sh on the sh stack',
      code: { name: 'sh-greeter', runtime: 'sh', file_name: '__runner__.sh' },
      files: { '__runner__.sh': SH_RUNNER },
      payload: 'hey',
      output: 'sh in /mnt/task says hey\n',
    },
    {
      what: "the Ruby client's runner script (runtime sh, no stack) on the ruby stack: it starts ruby",
      code: { name: 'rb-ng-greeter', runtime: 'sh', file_name: '__runner__.sh' },
      files: { '__runner__.sh': `${SH_RUNNER}exec ruby hello.rb "$@"\n`, 'hello.rb': RUBY_WORKER },
      payload: JSON.stringify({ greeting: 'yo' }),
      output: 'sh in /mnt/task says {"greeting":"yo"}\nruby 3 says yo\n',
    },
    {
      what: 'a binary package: the file itself, made executable',
      code: { name: 'bin-greeter', runtime: 'binary', file_name: 'worker' },
      files: { worker: '#!/bin/sh\necho "binary got $# arguments"\n' },
      zipMode: 0o100644,
      payload: 'x',
      output: 'binary got 8 arguments\n',
    },
  ])(
    'runs $what',
    async ({ code, files, zipMode, payload, output }) => {
      await worker.upload(code, await zipOf(files, zipMode === undefined ? {} : { mode: zipMode }));
      expect(await runToEnd(code.name, payload)).toBe(output);
    },
    scaled(90_000),
  );
});
