/**
 * A queue of encoded blocks between the rank threads and an INSERT that streams them to
 * ClickHouse: the INSERT reads it as an async iterable, the producer waits while it holds
 * `limit` blocks (so a ClickHouse slower than the threads bounds the memory in between), and a
 * failed INSERT fails the producer's next push.
 */
export class BlockQueue implements AsyncIterable<Buffer> {
  private readonly blocks: Buffer[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriters: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async push(block: Buffer): Promise<void> {
    while (this.blocks.length >= this.limit && !this.failure) await new Promise<void>((resolve) => this.wakeWriters.push(resolve));
    if (this.failure) throw this.failure;
    this.blocks.push(block);
    this.wakeReader?.();
  }

  end(): void {
    this.ended = true;
    this.wakeReader?.();
  }

  /** The consumer failed: producers stop at their next push. */
  fail(error: Error): void {
    this.failure = error;
    for (const wake of this.wakeWriters.splice(0)) wake();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      const block = this.blocks.shift();
      if (block) {
        for (const wake of this.wakeWriters.splice(0)) wake();
        yield block;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
      this.wakeReader = undefined;
    }
  }
}
