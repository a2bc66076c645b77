/** Keeps the `limit` entries with the largest values seen, largest first (ties: first seen wins). */
export class TopN<T> {
  private readonly entries: Array<{ item: T; value: number }> = [];

  constructor(private readonly limit: number) {}

  offer(item: T, value: number): void {
    if (this.limit <= 0) return;
    if (this.entries.length === this.limit && value <= this.entries[this.entries.length - 1]!.value) return;
    const at = this.entries.findIndex((entry) => entry.value < value);
    this.entries.splice(at < 0 ? this.entries.length : at, 0, { item, value });
    if (this.entries.length > this.limit) this.entries.pop();
  }

  list(): Array<{ item: T; value: number }> {
    return [...this.entries];
  }
}
