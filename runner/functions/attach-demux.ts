import type { Readable } from 'node:stream';

const HEADER_BYTES = 8;
const STDOUT = 1;
const STDERR = 2;

/** What a container's output goes to, by stream; a stream without one is dropped. */
export interface AttachOutputs {
  stdout?: (piece: Buffer) => void;
  stderr?: (piece: Buffer) => void;
}

/**
 * Reads the engine's multiplexed attach stream (frames of an 8-byte header: the stream type,
 * three zero bytes and the payload's length, big-endian) and hands each piece of stdout and
 * stderr payload to its output as it arrives, without copying it. Hot containers write a frame
 * line (and, in the json and http formats, their answer) per call, so this runs per call:
 * docker-modem's demuxStream copied every chunk into a new buffer and passed each payload
 * through a Writable. Pieces may split a line, an answer or a character anywhere (the readers
 * join them). A header of an unknown type means the stream is not multiplexed (a TTY): the
 * rest is dropped.
 */
export function demuxAttach(stream: Readable, outputs: AttachOutputs): void {
  stream.on('data', attachDemuxer(outputs));
}

/** demuxAttach's reader, for output read by other means: each chunk as it is read (it may be reused once this returns). */
export function attachDemuxer(outputs: AttachOutputs): (chunk: Buffer) => void {
  const header = Buffer.alloc(HEADER_BYTES);
  let headerBytes = 0;
  let payloadLeft = 0;
  let output: ((piece: Buffer) => void) | undefined;
  let raw = false;
  return (chunk: Buffer) => {
    let at = 0;
    while (!raw && at < chunk.length) {
      if (payloadLeft > 0) {
        const end = Math.min(chunk.length, at + payloadLeft);
        output?.(chunk.subarray(at, end));
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
      const type = header[0]!;
      raw = type > STDERR;
      output = type === STDOUT ? outputs.stdout : type === STDERR ? outputs.stderr : undefined;
      payloadLeft = header.readUInt32BE(4);
    }
  };
}
