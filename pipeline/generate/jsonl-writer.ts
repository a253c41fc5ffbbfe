/**
 * A JSON Lines file writer for millions of small records: lines are batched into large
 * chunks (one stream write per ~256 KB instead of per line), and the caller is told when
 * the stream is saturated so it can await 'drain' instead of buffering without bound.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

const CHUNK_CHARS = 256 * 1024;
const STREAM_HIGH_WATER_MARK = 4 * 1024 * 1024;

export class JsonlWriter {
  private pending = '';
  private rowCount = 0;
  private failure: Error | undefined;

  private constructor(private readonly stream: WriteStream) {
    // Kept, not thrown: an unhandled 'error' event would crash the process mid-phase.
    stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  static open(path: string): JsonlWriter {
    return new JsonlWriter(createWriteStream(path, { highWaterMark: STREAM_HIGH_WATER_MARK }));
  }

  get rows(): number {
    return this.rowCount;
  }

  /** Buffers one record. Returns false when the caller must `await drained()` before writing more. */
  write(record: object): boolean {
    this.pending += JSON.stringify(record) + '\n';
    this.rowCount++;
    return this.pending.length < CHUNK_CHARS || this.flush();
  }

  /** Resolves once the stream has room again (immediately if it already has). */
  async drained(): Promise<void> {
    this.throwIfFailed();
    if (this.stream.writableNeedDrain) await once(this.stream, 'drain');
  }

  /** Writes what is buffered and resolves when the file is complete on disk. */
  async close(): Promise<void> {
    this.flush();
    this.stream.end();
    await finished(this.stream);
    this.throwIfFailed();
  }

  /** Hands the buffered chunk to the stream; false if the stream is now over its high-water mark. */
  private flush(): boolean {
    this.throwIfFailed();
    if (this.pending === '') return !this.stream.writableNeedDrain;
    const chunk = this.pending;
    this.pending = '';
    return this.stream.write(chunk);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }
}
