import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { checkZip, extractZip } from '../../src/worker/codes/archives/zip.js';
import { prepareTaskFiles } from '../../runner/tasks/task-files.js';
import { zipOf } from '../helpers/worker.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const limits = loadConfig({}).worker.zip;

const tempDir = useTempDirs('ferrum-zip-links-');

describe('symbolic links in zip packages', () => {
  it('keeps links that point inside the package, to files and folders, after the files', async () => {
    const zip = await zipOf(
      { 'lib/v1/msg.txt': 'one', 'bin/run.sh': 'echo' },
      { links: { 'lib/current': 'v1', run: 'bin/run.sh', 'bin/msg': '../lib/v1/msg.txt', self: '.' } },
    );
    await checkZip(zip, limits);
    const dir = tempDir();
    await extractZip(zip, dir, limits);
    expect(fs.readlinkSync(path.join(dir, 'lib/current'))).toBe('v1');
    expect(fs.readFileSync(path.join(dir, 'lib/current/msg.txt'), 'utf8')).toBe('one');
    expect(fs.readlinkSync(path.join(dir, 'run'))).toBe('bin/run.sh');
    expect(fs.readFileSync(path.join(dir, 'bin/msg'), 'utf8')).toBe('one');
    expect(fs.lstatSync(path.join(dir, 'self')).isSymbolicLink()).toBe(true);
  });

  const refused: [string, Record<string, string>, Record<string, string>, RegExp][] = [
    [
      'an absolute target',
      {},
      { passwd: '/etc/passwd' },
      /passwd is a symbolic link to the absolute path \/etc\/passwd/,
    ],
    [
      'a target climbing above the root',
      { 'a/x': 'x' },
      { 'a/up': '../../secret' },
      /a\/up is a symbolic link leaving the package \(\.\.\/\.\.\/secret\)/,
    ],
    ['a target climbing out and back in', {}, { back: '../pkg/x' }, /back is a symbolic link leaving the package/],
    [
      'a chain through another link',
      { 'd/f': 'f' },
      { one: 'd', two: 'one/f' },
      /two is a symbolic link through another link \(one\)/,
    ],
    ['a link to a link', { f: 'f' }, { one: 'f', two: 'one' }, /two is a symbolic link through another link \(one\)/],
    [
      'a chain climbing through a link',
      { 'd/e/f': 'f' },
      { deep: 'd/e', out: 'deep/../../..' },
      /out is a symbolic link through another link \(deep\)/,
    ],
    ['a file inside a link', { 'dir/evil': 'x' }, { dir: '.' }, /dir\/evil lies inside the symbolic link dir/],
    ['an empty target', {}, { nothing: '' }, /nothing is a symbolic link to nothing/],
    ['a Windows absolute target', {}, { win: 'C:/Windows' }, /win is a symbolic link to the absolute path C:\/Windows/],
  ];
  for (const [what, files, links, msg] of refused) {
    it(`refuses ${what}, at upload and when unpacking`, async () => {
      const zip = await zipOf(files, { links });
      await expect(checkZip(zip, limits)).rejects.toMatchObject({
        statusCode: 400,
        message: expect.stringMatching(msg),
      });
      const dir = tempDir();
      await expect(extractZip(zip, dir, limits)).rejects.toThrow(msg);
      expect(fs.readdirSync(dir)).toEqual([]);
    });
  }

  it('refuses a link target longer than 1024 bytes', async () => {
    const zip = await zipOf({}, { links: { long: 'a/'.repeat(600) } });
    await expect(checkZip(zip, limits)).rejects.toThrow(/long is a symbolic link longer than 1024 bytes/);
  });

  it('writes the payload and config in place of links of those names, never through them', async () => {
    const zip = await zipOf(
      { 'kept.txt': 'package file' },
      { links: { 'payload.json': 'kept.txt', 'config.json': 'kept.txt' } },
    );
    const files = await prepareTaskFiles('{"a":1}', 'conf', zip, limits);
    try {
      expect(fs.readFileSync(path.join(files.dir, 'kept.txt'), 'utf8')).toBe('package file');
      expect(fs.lstatSync(path.join(files.dir, 'payload.json')).isSymbolicLink()).toBe(false);
      expect(fs.readFileSync(path.join(files.dir, 'payload.json'), 'utf8')).toBe('{"a":1}');
      expect(fs.readFileSync(path.join(files.dir, 'config.json'), 'utf8')).toBe('conf');
    } finally {
      await files.remove();
    }
  });
});
