import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { uploadForm, zipOf } from '../../helpers/worker.js';
import { pythonClientForm, RUNTIME_STACKS_ENV } from '../../helpers/runtimes.js';

// Old-style zip packages naming a runtime: the runtime picks the stack and the command, each
// upload sent as an official client sends it. No runner: this checks what is stored.
// (test/docker/worker/worker-runtimes-docker.test.ts runs such packages on their stacks.)
const server = useTestServer(RUNTIME_STACKS_ENV);
const worker = useWorkerClient(server);

// The built-in runtime table; java, php and go name stacks this installation lacks.

async function codeOf(id: string) {
  return (await server.http.get(worker.path(`/codes/${id}`))).body;
}

async function uploaded(data: Record<string, unknown>, files: Record<string, string> = { 'main.x': 'x' }) {
  return codeOf(await worker.upload(data, await zipOf(files)));
}

describe('a runtime picks the stack', () => {
  it("runs the Python client's upload (runtime python, file_name) on the python stack", async () => {
    const data = { name: 'py-hello', runtime: 'python', file_name: 'hello.py' };
    const { raw, type } = pythonClientForm(data, await zipOf({ 'hello.py': 'print("hi")' }));
    const response = await server.http.post(worker.path('/codes'), undefined, {
      raw,
      headers: { 'Content-Type': type },
    });
    expect(response.status, response.text).toBe(200);
    expect(await codeOf(response.body.id)).toMatchObject({
      runtime: 'python',
      stack: 'python-3.12',
      command: 'python hello.py',
    });
  });

  it('keeps the stack the Ruby client names beside runtime sh and __runner__.sh', async () => {
    const code = await uploaded({ name: 'rb-ng', runtime: 'sh', file_name: '__runner__.sh', stack: 'ruby-3.3' });
    expect(code).toMatchObject({ runtime: 'sh', stack: 'ruby-3.3', command: 'sh __runner__.sh' });
  });

  it("runs the Java client's upload (runtime sh, __runner__.sh, no stack) on the sh runtime's stack", async () => {
    const code = await uploaded({ name: 'java-worker', runtime: 'sh', file_name: '__runner__.sh' });
    expect(code).toMatchObject({ stack: 'node-20', command: 'sh __runner__.sh' });
  });

  it('runs runtime sh on the stack of the program its __runner__.sh starts (Ruby and npm clients)', async () => {
    const runner = (line: string) => ({ '__runner__.sh': `#!/bin/sh\ncd "$(dirname "$0")"\n${line}\n` });
    const data = (name: string) => ({ name, runtime: 'sh', file_name: '__runner__.sh' });
    expect(await uploaded(data('rb-ng-default'), runner('exec ruby __runner__.rb "$@"'))).toMatchObject({
      runtime: 'sh',
      stack: 'ruby-3.3',
      command: 'sh __runner__.sh',
    });
    expect(await uploaded(data('npm-default'), runner('node worker.js "$@"'))).toMatchObject({ stack: 'node-20' });
    // java's stack is not configured here: the built-in table sends it to the default stack.
    expect(await uploaded(data('java-default'), runner('java -jar worker.jar'))).toMatchObject({ stack: 'node-20' });
  });

  it('runs a binary on its own stack', async () => {
    const code = await uploaded({ name: 'static', runtime: 'binary', file_name: 'worker' });
    expect(code).toMatchObject({ stack: 'busybox', command: 'chmod +x ./worker 2>/dev/null; ./worker' });
  });

  it('runs a runtime whose stack is not configured on the default stack', async () => {
    expect(await uploaded({ name: 'jar', runtime: 'java', file_name: 'app.jar' })).toMatchObject({
      stack: 'node-20',
      command: 'java -jar app.jar',
    });
  });

  it('runs a zip naming neither runtime nor stack on the default stack, executing its file', async () => {
    const code = await uploaded({ name: 'bare', file_name: 'run' });
    expect(code).toMatchObject({ stack: 'node-20', command: 'chmod +x ./run 2>/dev/null; ./run' });
  });

  it('launches each runtime as the original service did', async () => {
    const cases: [string, string, string][] = [
      ['python', 'worker.py', 'python worker.py'],
      ['ruby', 'worker.rb', 'ruby worker.rb'],
      ['node', 'worker.js', 'node worker.js'],
      ['php', 'worker.php', 'php worker.php'],
      ['sh', 'worker.sh', 'sh worker.sh'],
      ['java', 'Worker.java', 'java Worker.java'],
      ['java', 'worker.jar', 'java -jar worker.jar'],
      ['go', 'worker.go', 'go run worker.go'],
      ['go', 'worker', 'chmod +x ./worker 2>/dev/null; ./worker'],
      ['binary', 'bin/worker', 'chmod +x ./bin/worker 2>/dev/null; ./bin/worker'],
      ['python', "my worker's.py", `python 'my worker'\\''s.py'`],
    ];
    for (const [i, [runtime, file, command]] of cases.entries()) {
      const code = await uploaded({ name: `launch-${i}`, runtime, file_name: file });
      expect(code.command, `${runtime} ${file}`).toBe(command);
    }
  });

  it('keeps a command the upload gives', async () => {
    const code = await uploaded({ name: 'own', runtime: 'ruby', file_name: 'a.rb', command: 'ruby -W0 a.rb' });
    expect(code).toMatchObject({ stack: 'ruby-3.3', command: 'ruby -W0 a.rb' });
  });

  it('refuses an unknown runtime, naming the known ones', async () => {
    const response = await server.http.post(worker.path('/codes'), undefined, {
      raw: uploadForm({ name: 'cobol', runtime: 'cobol', file_name: 'a.cob' }, await zipOf({ 'a.cob': 'x' })),
    });
    expect(response.status).toBe(400);
    expect(response.body.msg).toBe(
      'runtime must be one of: binary, go, java, node, php, python, ruby, sh (got "cobol")',
    );
  });

  it('lists every stack a runtime names in GET /2/stacks', async () => {
    const response = await server.http.get('/2/stacks');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(['busybox', 'node-20', 'python-3.12', 'ruby-3.3']);
  });
});
