import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxAttach } from '../../runner/functions/attach-demux.js';

/** One frame of the engine's multiplexed stream. */
function frame(type: number, payload: string): Buffer {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(Buffer.byteLength(payload), 4);
  return Buffer.concat([header, Buffer.from(payload)]);
}

/** Feeds `chunks` through demuxAttach; the stdout (when read) and stderr it handed over, each joined. */
function outputOf(chunks: Buffer[], readStdout = true): { stdout: string; stderr: string } {
  const stream = new PassThrough();
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  demuxAttach(stream, {
    ...(readStdout ? { stdout: (piece: Buffer) => stdout.push(Buffer.from(piece)) } : {}),
    stderr: (piece) => stderr.push(Buffer.from(piece)),
  });
  for (const chunk of chunks) stream.write(chunk);
  return { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() };
}

/** `bytes` cut into chunks of `size` bytes. */
function cut(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

describe('demuxAttach', () => {
  const stream = Buffer.concat([
    frame(2, '\nFERRUM_CALL=a\n'),
    frame(1, '{"answer":'),
    frame(2, 'a line of call a\n'),
    frame(2, ''),
    frame(2, 'héllo\n'),
    frame(1, '"ünïcode"}'),
  ]);
  const stdout = '{"answer":"ünïcode"}';
  const stderr = '\nFERRUM_CALL=a\na line of call a\nhéllo\n';

  it('hands over the stdout and stderr payloads of whole frames, several to a chunk', () => {
    expect(outputOf([stream])).toEqual({ stdout, stderr });
  });

  it('reads frames whose headers and payloads are split across chunks at any byte', () => {
    for (const size of [1, 3, 7, 8, 9, 13]) expect(outputOf(cut(stream, size))).toEqual({ stdout, stderr });
  });

  it('drops the output of a stream it has no reader for (an http-stream container reads stderr only)', () => {
    expect(outputOf([stream], false)).toEqual({ stdout: '', stderr });
  });

  it('drops the rest of a stream that is not multiplexed (a TTY)', () => {
    const chunks = [frame(2, 'kept\n'), Buffer.from('plain terminal output\n'), frame(2, 'not kept\n')];
    expect(outputOf(chunks)).toEqual({ stdout: '', stderr: 'kept\n' });
  });
});
