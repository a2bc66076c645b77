import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatBytes, Progress, withUploadProgress } from '../../cli/progress.js';

/** A real stream that keeps what is written to it; a stand-in terminal (it says it is a TTY) unless `tty` is false. */
function terminal(tty = true): { stream: NodeJS.WriteStream; text: () => string } {
  let written = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  if (tty) (stream as { isTTY?: boolean }).isTTY = true;
  return { stream, text: () => written };
}

describe('upload progress', () => {
  it('sends the body unchanged and shows bytes sent and the percentage on a terminal', async () => {
    const body = Buffer.alloc(200 * 1024, 7);
    const screen = terminal();
    const sent: Buffer[] = [];
    for await (const chunk of withUploadProgress('uploading hello…', body, new Progress(screen.stream)))
      sent.push(chunk as Buffer);
    expect(Buffer.concat(sent).equals(body)).toBe(true);
    expect(screen.text()).toContain('uploading hello… 0 B of 200.0 KB (0%)');
    expect(screen.text()).toContain('uploading hello… 128.0 KB of 200.0 KB (64%)');
    expect(screen.text()).toContain('200.0 KB sent, waiting for the server');
  });

  it('writes nothing when stderr is not a terminal', async () => {
    const pipe = terminal(false);
    for await (const _chunk of withUploadProgress('x', Buffer.alloc(10), new Progress(pipe.stream))) void _chunk;
    expect(pipe.text()).toBe('');
  });

  it('formats sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });
});
