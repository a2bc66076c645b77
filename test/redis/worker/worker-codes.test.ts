import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../helpers/test-file.js';
import { useWorkerClient } from '../../helpers/worker-test-file.js';
import { FAST_WORKER_ENV, uploadForm, WorkerClient, zipOf } from '../../helpers/worker.js';
import yauzl from 'yauzl';

const MAX_CODE_BYTES = 200_000;

const server = useTestServer({ ...FAST_WORKER_ENV, FERRUM_WORKER_MAX_CODE_BYTES: String(MAX_CODE_BYTES) });
const worker = useWorkerClient(server);

function post(data: unknown, zip?: Buffer) {
  return server.http.post(worker.path('/codes'), undefined, { raw: uploadForm(data, zip) });
}

function zipEntries(data: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(data, (error, zip) => {
      if (error) return reject(error);
      const names: string[] = [];
      zip.on('entry', (entry) => names.push(entry.fileName));
      zip.on('end', () => resolve(names));
    });
  });
}

describe('code packages', () => {
  it('uploads an image package and reads it back with every field', async () => {
    // Fields a code package keeps as sent (default_priority reads back as priority).
    const kept = {
      image: 'ferrum-test/busybox',
      command: 'echo hi',
      config: '{"a":1}',
      max_concurrency: 3,
      retries: 2,
      retries_delay: 10,
      env_vars: { KEY: 'value' },
    };
    const response = await post({ name: 'image-code', ...kept, default_priority: 1 });
    expect(response.status).toBe(200);
    expect(response.body.msg).toBe('Upload successful.');
    const code = (await server.http.get(worker.path(`/codes/${response.body.id}`))).body;
    expect(code).toMatchObject({
      id: response.body.id,
      project_id: server.projectId,
      name: 'image-code',
      rev: 1,
      ...kept,
      priority: 1,
    });
    expect(code.latest_checksum).toBeUndefined();
    expect(Date.parse(code.created_at)).toBeGreaterThan(0);
    expect(Date.parse(code.latest_change)).toBeGreaterThan(0);
    expect(typeof code.latest_history_id).toBe('string');
  });

  it("registers an image from a JSON body, as the Ruby client's codes_register sends it", async () => {
    const headers = { 'User-Agent': 'iron_worker_ruby-3.4.2 (iron_core_ruby-1.0.12)' };
    const body = { name: 'registered', image: 'ferrum-test/busybox', command: 'echo hi', env_vars: { A: '1' } };
    const response = await server.http.post(worker.path('/codes'), body, { headers });
    expect(response.status).toBe(200);
    const code = (await server.http.get(worker.path(`/codes/${response.body.id}`))).body;
    expect(code).toMatchObject({ name: 'registered', image: 'ferrum-test/busybox', env_vars: { A: '1' } });
    // The same rules as the multipart data part: a name is required, a zip cannot come this way.
    const nameless = await server.http.post(worker.path('/codes'), { image: 'ferrum-test/busybox' }, { headers });
    expect(nameless.status).toBe(406);
    expect(nameless.body.msg).toBe('name is required');
    const stack = await server.http.post(worker.path('/codes'), { name: 'x', stack: 'sh' }, { headers });
    expect(stack.status).toBe(400);
    expect(stack.body.msg).toMatch(/zip packages/);
    const text = await server.http.postRaw(worker.path('/codes'), 'name=x', 'text/plain');
    expect(text.status).toBe(400);
    expect(text.body.msg).toMatch(/multipart\/form-data .* or application\/json/);
  });

  it('adds revisions under the same name and downloads each zip', async () => {
    const first = await zipOf({ 'one.sh': 'echo one' });
    const second = await zipOf({ 'two.sh': 'echo two', 'lib/x.txt': 'x' });
    const id = await worker.upload({ name: 'zip code', stack: 'sh', command: 'sh one.sh' }, first);
    expect(await worker.upload({ name: 'zip code', stack: 'sh', command: 'sh two.sh' }, second)).toBe(id);

    const code = (await server.http.get(worker.path(`/codes/${id}`))).body;
    expect(code.rev).toBe(2);
    expect(code.stack).toBe('sh');
    const { createHash } = await import('node:crypto');
    expect(code.latest_checksum).toBe(createHash('md5').update(second).digest('hex'));

    const revisions = (await server.http.get(worker.path(`/codes/${id}/revisions`))).body.revisions;
    expect(revisions.map((revision: any) => revision.rev)).toEqual([2, 1]);
    expect(revisions[1]).toMatchObject({
      code_id: id,
      name: 'zip code',
      command: 'sh one.sh',
      code_size: first.length,
    });
    expect(revisions[0].id).toBe(code.latest_history_id);
    const paged = (await server.http.get(worker.path(`/codes/${id}/revisions?per_page=1&page=1`))).body.revisions;
    expect(paged.map((revision: any) => revision.rev)).toEqual([1]);

    const latest = await fetch(`${server.url}${worker.path(`/codes/${id}/download`)}?oauth=${server.token}`);
    expect(latest.status).toBe(200);
    expect(latest.headers.get('content-type')).toBe('application/zip');
    expect(latest.headers.get('content-disposition')).toBe('attachment; filename="zip_code_2.zip"');
    expect(Buffer.from(await latest.arrayBuffer()).equals(second)).toBe(true);

    const older = await fetch(`${server.url}${worker.path(`/codes/${id}/download`)}?revision=1&oauth=${server.token}`);
    expect(older.headers.get('content-disposition')).toBe('attachment; filename="zip_code_1.zip"');
    expect(await zipEntries(Buffer.from(await older.arrayBuffer()))).toEqual(['one.sh']);

    expect((await server.http.get(worker.path(`/codes/${id}/download?revision=9`))).status).toBe(404);
  });

  it('derives the command of an old-style zip package from file_name and runtime', async () => {
    const id = await worker.upload(
      { name: 'legacy', stack: 'sh', file_name: 'run.rb', runtime: 'ruby' },
      await zipOf({ 'run.rb': 'puts 1' }),
    );
    const code = (await server.http.get(worker.path(`/codes/${id}`))).body;
    expect(code.command).toBe('ruby run.rb');
    expect(code.runtime).toBe('ruby');
  });

  it('lists packages with paging and deletes them', async () => {
    const project = (await server.http.post('/1/projects', { name: 'codes-list' })).body.id;
    const other = new WorkerClient(server.http, project);
    for (const name of ['a', 'b', 'c']) await other.upload({ name, image: 'ferrum-test/busybox' });
    const all = (await server.http.get(other.path('/codes'))).body.codes;
    expect(all.map((code: any) => code.name)).toEqual(['a', 'b', 'c']);
    const page = (await server.http.get(other.path('/codes?per_page=2&page=1'))).body.codes;
    expect(page.map((code: any) => code.name)).toEqual(['c']);

    const deleted = await server.http.delete(other.path(`/codes/${all[1].id}`));
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ msg: 'Deleted' });
    expect((await server.http.get(other.path(`/codes/${all[1].id}`))).status).toBe(404);
    expect((await server.http.delete(other.path(`/codes/${all[1].id}`))).status).toBe(404);
    expect((await server.http.get(other.path('/codes'))).body.codes.map((code: any) => code.name)).toEqual(['a', 'c']);
    // The name is free again: a new package, revision 1.
    const again = await other.upload({ name: 'b', image: 'ferrum-test/busybox' });
    expect((await server.http.get(other.path(`/codes/${again}`))).body.rev).toBe(1);
  });

  it('lists the configured stacks', async () => {
    const response = await server.http.get('/2/stacks');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(['node', 'sh']);
    expect((await server.http.get('/2/stacks', { token: null })).status).toBe(401);
  });

  describe('refuses bad uploads', () => {
    const cases: [string, unknown, Buffer | undefined, number, string][] = [
      ['no data', '', undefined, 406, 'data is required'],
      ['data that is not JSON', '{nope', undefined, 400, 'Invalid JSON data: '],
      ['data nested too deep', `{"name":${'['.repeat(65)}${']'.repeat(65)}}`, undefined, 400, 'nested deeper than 64'],
      ['data that is not an object', '[1]', undefined, 400, 'data must be an object'],
      ['no name', { image: 'x' }, undefined, 406, 'name is required'],
      ['an empty name', { name: '', image: 'x' }, undefined, 406, 'name is required'],
      [
        'a name over 255 characters',
        { name: 'n'.repeat(256), image: 'x' },
        undefined,
        400,
        'name must be at most 255 characters',
      ],
      [
        'an env var name with a dash',
        { name: 'x', image: 'x', env_vars: { 'A-B': 'v' } },
        undefined,
        400,
        'env_vars name "A-B"',
      ],
      [
        'a max_concurrency of 0',
        { name: 'x', image: 'x', max_concurrency: 0 },
        undefined,
        400,
        'max_concurrency must be between 1 and 100000',
      ],
      ['no image', { name: 'x' }, undefined, 406, 'image is required'],
      ['a name that is not a string', { name: 5, image: 'x' }, undefined, 400, 'name must be a string'],
      [
        'config over 64 KB',
        { name: 'x', image: 'x', config: 'c'.repeat(65537) },
        undefined,
        400,
        'config must be at most 65536 bytes',
      ],
      ['retries over 10', { name: 'x', image: 'x', retries: 11 }, undefined, 400, 'retries must be between 0 and 10'],
      ['a fractional retries', { name: 'x', image: 'x', retries: 1.5 }, undefined, 400, 'retries must be an integer'],
      [
        'priority 3',
        { name: 'x', image: 'x', default_priority: 3 },
        undefined,
        400,
        'default_priority must be between 0 and 2',
      ],
      [
        'env_vars with a number',
        { name: 'x', image: 'x', env_vars: { A: 1 } },
        undefined,
        400,
        'env_vars.A must be a string',
      ],
      ['env_vars as a list', { name: 'x', image: 'x', env_vars: ['A'] }, undefined, 400, 'env_vars must be an object'],
      [
        'image and stack',
        { name: 'x', image: 'x', stack: 'sh' },
        undefined,
        400,
        'stack is not supported for custom images',
      ],
      ['an unknown stack', { name: 'x', stack: 'cobol' }, Buffer.from('PK'), 400, 'stack must be one of: node, sh'],
      ['a stack without a zip', { name: 'x', stack: 'sh' }, undefined, 400, 'stack is for zip packages'],
      [
        'a file that is not a zip',
        { name: 'x', stack: 'sh', command: 'x' },
        Buffer.from('not a zip at all'),
        400,
        'file is not a valid zip archive',
      ],
    ];
    for (const [what, data, zip, status, msg] of cases) {
      it(what, async () => {
        const response = await post(data, zip);
        expect(response.status).toBe(status);
        expect(response.body.msg).toContain(msg);
      });
    }

    it('a zip without command or file_name', async () => {
      const response = await post({ name: 'x', stack: 'sh' }, await zipOf({ 'a.sh': 'x' }));
      expect(response.status).toBe(406);
      expect(response.body.msg).toContain('command is required for zip packages');
    });

    it('a JSON body that wraps the fields in "data" instead of being them', async () => {
      const response = await server.http.post(worker.path('/codes'), { data: { name: 'x', image: 'x' } });
      expect(response.status).toBe(406);
      expect(response.body.msg).toBe('name is required');
    });

    it('a broken multipart body', async () => {
      const response = await server.http.postRaw(
        worker.path('/codes'),
        '--xyz\r\nContent-Disposition: form-data; name="data"\r\n\r\n{"name":"x"',
        'multipart/form-data; boundary=xyz',
      );
      expect(response.status).toBe(400);
      expect(response.body.msg).toMatch(/multipart|data/i);
    });

    it('a zip over the configured size', async () => {
      const { randomBytes } = await import('node:crypto');
      const big = await zipOf({ 'noise.bin': randomBytes(MAX_CODE_BYTES).toString('base64') });
      const response = await post({ name: 'big', stack: 'sh', command: 'x' }, big);
      expect(response.status).toBe(413);
      expect(response.body.msg).toBe(`file must be at most ${MAX_CODE_BYTES} bytes`);
    });

    it('a file in another field', async () => {
      const form = uploadForm({ name: 'x', image: 'x' });
      form.append('zip', new Blob(['x']), 'x.zip');
      const response = await server.http.post(worker.path('/codes'), undefined, { raw: form });
      expect(response.status).toBe(400);
      expect(response.body.msg).toContain('unexpected file field "zip"');
    });

    it('unknown code ids and projects', async () => {
      expect((await server.http.get(worker.path('/codes/000000000000000000000000'))).status).toBe(404);
      expect((await server.http.get('/2/projects/nope/codes')).status).toBe(404);
      expect((await server.http.get(worker.path('/codes'), { token: null })).status).toBe(401);
    });
  });
});
