/** A Uint32Array or Float64Array that grows as values are pushed: a loader's columns, whose length the stream decides. */

export class GrowableUint32 {
  private values = new Uint32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  /** The values pushed, as an array of their own. */
  done(): Uint32Array {
    return this.values.slice(0, this.length);
  }
}

export class GrowableFloat64 {
  private values = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  done(): Float64Array {
    return this.values.slice(0, this.length);
  }
}
