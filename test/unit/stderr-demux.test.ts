import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxStderr } from '../../runner/functions/stderr-demux.js';

/** One frame of the engine's multiplexed stream. */
function frame(type: number, payload: string): Buffer {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(Buffer.byteLength(payload), 4);
  return Buffer.concat([header, Buffer.from(payload)]);
}

/** Feeds `chunks` through demuxStderr; the stderr it handed over, joined. */
function stderrOf(chunks: Buffer[]): string {
  const stream = new PassThrough();
  const pieces: Buffer[] = [];
  demuxStderr(stream, (piece) => pieces.push(Buffer.from(piece)));
  for (const chunk of chunks) stream.write(chunk);
  return Buffer.concat(pieces).toString();
}

/** `bytes` cut into chunks of `size` bytes. */
function cut(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

describe('demuxStderr', () => {
  const stream = Buffer.concat([
    frame(2, '\nFERRUM_CALL=a\n'),
    frame(1, 'stdout is dropped\n'),
    frame(2, 'a line of call a\n'),
    frame(2, ''),
    frame(2, 'héllo\n'),
  ]);
  const stderr = '\nFERRUM_CALL=a\na line of call a\nhéllo\n';

  it('hands over the stderr payloads of whole frames, several to a chunk, and drops stdout', () => {
    expect(stderrOf([stream])).toBe(stderr);
  });

  it('reads frames whose headers and payloads are split across chunks at any byte', () => {
    for (const size of [1, 3, 7, 8, 9, 13]) expect(stderrOf(cut(stream, size))).toBe(stderr);
  });

  it('drops the rest of a stream that is not multiplexed (a TTY)', () => {
    expect(stderrOf([frame(2, 'kept\n'), Buffer.from('plain terminal output\n'), frame(2, 'not kept\n')])).toBe(
      'kept\n',
    );
  });
});
