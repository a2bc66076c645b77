import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { columns } from '../../cli/columns.js';
import { Output, cellText, formatTable } from '../../cli/output.js';
import { Progress, withProgress } from '../../cli/progress.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('output', () => {
  it('aligns columns under upper-case headers, without borders or trailing spaces', () => {
    const rows = [
      { id: 'a', name: 'short' },
      { id: 'longer-id', name: null },
    ];
    expect(formatTable(rows, columns('id', 'name'))).toBe('ID         NAME\na          short\nlonger-id  -');
  });

  it('shows absent and empty values as -, objects as JSON', () => {
    expect([undefined, null, '', []].map(cellText)).toEqual(['-', '-', '-', '-']);
    expect(cellText({ a: 1 })).toBe('{"a":1}');
    expect(cellText(['x'])).toBe('["x"]');
    expect(cellText(0)).toBe('0');
  });

  it('prints the raw answer as JSON with --json, (none) for an empty table otherwise', () => {
    const human = capture();
    new Output('table', human.stream).table([], columns('id'), { tasks: [] });
    expect(human.text()).toBe('(none)\n');
    const json = capture();
    new Output('json', json.stream).table([], columns('id'), { tasks: [] });
    expect(JSON.parse(json.text())).toEqual({ tasks: [] });
  });
});

describe('output formats', () => {
  it('-o wide shows every field of any row, -o yaml the raw answer as YAML', () => {
    const wide = capture();
    new Output('wide', wide.stream).table([{ id: 'a' }, { id: 'b', extra: 1 }], columns('id'));
    expect(wide.text()).toBe('ID  EXTRA\na   -\nb   1\n');
    const yaml = capture();
    new Output('yaml', yaml.stream).table([], columns('id'), { tasks: [{ id: 'a', n: 1 }] });
    expect(yaml.text()).toBe('tasks:\n  - id: a\n    n: 1\n');
  });
});

describe('progress', () => {
  it('draws and clears a status line on a terminal', async () => {
    const terminal = capture();
    Object.assign(terminal.stream, { isTTY: true });
    const answer = await withProgress(
      'waiting',
      Promise.resolve(42),
      new Progress(terminal.stream as unknown as NodeJS.WriteStream),
    );
    expect(answer).toBe(42);
    expect(terminal.text()).toBe('\r\x1b[2Kwaiting 0s\r\x1b[2K');
  });

  it('stays silent when stderr is not a terminal', async () => {
    const pipe = capture();
    await withProgress('waiting', Promise.resolve(1), new Progress(pipe.stream as unknown as NodeJS.WriteStream));
    expect(pipe.text()).toBe('');
  });
});
