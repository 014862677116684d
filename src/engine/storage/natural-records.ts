/**
 * A capped collection's documents in natural order, for a tailable cursor to
 * find its place by binary search: its getMore used to walk the collection
 * from the oldest document to the last one it read, every time. Records only
 * grow along natural order (an insert takes the next number; a capped
 * document never moves), so the list stays sorted by appending. A removed
 * document's entry stays until the oldest entries are dropped; readers skip
 * an entry whose key no longer has that record (`current`).
 */
export class NaturalRecords {
  private records: number[] = [];
  private keys: string[] = [];
  private head = 0;

  constructor(
    entries: Iterable<[string, number]>,
    private readonly current: (key: string) => number | undefined,
  ) {
    for (const [key, record] of entries) this.append(key, record);
  }

  append(key: string, record: number): void {
    this.records.push(record);
    this.keys.push(key);
  }

  /** Drops the entries, from the oldest, of documents no longer there (capped or deleted); compacts now and then. */
  dropRemovedOldest(): void {
    while (this.head < this.records.length && this.current(this.keys[this.head]!) !== this.records[this.head]) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.records.length) {
      this.records = this.records.slice(this.head);
      this.keys = this.keys.slice(this.head);
      this.head = 0;
    }
  }

  /** The first entry after record `after` whose document is still there, or undefined. */
  next(after: number): [string, number] | undefined {
    let low = this.head;
    let high = this.records.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.records[middle]! <= after) low = middle + 1;
      else high = middle;
    }
    for (let i = low; i < this.records.length; i += 1) {
      const key = this.keys[i]!;
      if (this.current(key) === this.records[i]) return [key, this.records[i]!];
    }
    return undefined;
  }
}
