import type { Readable } from 'node:stream';

const HEADER_BYTES = 8;
const STDERR = 2;

/**
 * Reads the engine's multiplexed attach stream (frames of an 8-byte header: the stream type,
 * three zero bytes and the payload's length, big-endian) and hands `onStderr` each piece of
 * stderr payload as it arrives, without copying it (stdout's and stdin's are dropped). A hot
 * container writes a frame line per call, so this runs per call: docker-modem's demuxStream
 * copied every chunk into a new buffer and passed each payload through a Writable. Pieces may
 * split a line or a character anywhere; CallLogFramer joins them. A header of another type
 * means the stream is not multiplexed (a TTY): the rest is not stderr, and is dropped.
 */
export function demuxStderr(stream: Readable, onStderr: (piece: Buffer) => void): void {
  const header = Buffer.alloc(HEADER_BYTES);
  let headerBytes = 0;
  let payloadLeft = 0;
  let type = 0;
  let raw = false;
  stream.on('data', (chunk: Buffer) => {
    let at = 0;
    while (!raw && at < chunk.length) {
      if (payloadLeft > 0) {
        const end = Math.min(chunk.length, at + payloadLeft);
        if (type === STDERR) onStderr(chunk.subarray(at, end));
        payloadLeft -= end - at;
        at = end;
        continue;
      }
      const taken = Math.min(HEADER_BYTES - headerBytes, chunk.length - at);
      chunk.copy(header, headerBytes, at, at + taken);
      headerBytes += taken;
      at += taken;
      if (headerBytes < HEADER_BYTES) break;
      headerBytes = 0;
      type = header[0]!;
      raw = type > STDERR;
      payloadLeft = header.readUInt32BE(4);
    }
  });
}
