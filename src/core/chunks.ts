/**
 * Splits `items`, in order, into runs of at most `maxItems` whose sizes add up to at most
 * `maxSize` — but for a single item bigger than that, which makes a run of its own. Keeps each
 * Redis script or command that takes one run short.
 */
export function boundedChunks<T>(items: T[], maxItems: number, maxSize: number, sizeOf: (item: T) => number): T[][] {
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemSize = sizeOf(item);
    if (chunk.length > 0 && (chunk.length >= maxItems || size + itemSize > maxSize)) {
      chunks.push(chunk);
      chunk = [];
      size = 0;
    }
    chunk.push(item);
    size += itemSize;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
