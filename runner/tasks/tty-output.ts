/**
 * Undoes the terminal's newline translation (onlcr: "\n" → "\r\n") on a container's TTY
 * output. A TTY is used because it carries stdout and stderr through one channel, so the
 * log keeps the order in which the task wrote them. A "\r" at the end of a chunk is held
 * until the next chunk shows whether a "\n" follows.
 */
export class TtyOutputDecoder {
  private heldCarriageReturn = false;

  decode(chunk: Buffer): Buffer {
    let text = chunk.toString('latin1');
    if (this.heldCarriageReturn) text = '\r' + text;
    this.heldCarriageReturn = text.endsWith('\r');
    if (this.heldCarriageReturn) text = text.slice(0, -1);
    return Buffer.from(text.replaceAll('\r\n', '\n'), 'latin1');
  }

  /** What is still held at the end of the output. */
  end(): Buffer {
    const rest = this.heldCarriageReturn ? Buffer.from('\r') : Buffer.alloc(0);
    this.heldCarriageReturn = false;
    return rest;
  }
}
