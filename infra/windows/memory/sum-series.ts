/**
 * Integer sums stay exact (up to 2^53); sums with fractions are rounded to 15 significant digits
 * after each step, the most a double holds exactly, so 0.1 + 0.2 stays 0.3 and rounding noise
 * cannot pile up over the life of a running total.
 */
export function addNumbers(a: number, b: number): number {
  const s = a + b;
  return Number.isInteger(a) && Number.isInteger(b) ? s : Number(s.toPrecision(15));
}

/** Index of the first element of sorted `xs` that is >= x. */
function lowerBound(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * One sum series: buckets in ascending order beside their values, plus the running total. Two
 * packed number arrays take about a third of the memory of a Map; new buckets almost always come
 * last and old ones leave from the front, so both ends are cheap.
 */
export class SumSeries {
  private readonly buckets: number[] = [];
  private readonly values: number[] = [];
  total = 0;

  get empty(): boolean {
    return this.buckets.length === 0;
  }

  add(bucket: number, delta: number): void {
    const n = this.buckets.length;
    const i = n > 0 && this.buckets[n - 1]! < bucket ? n : lowerBound(this.buckets, bucket);
    if (this.buckets[i] === bucket) {
      this.values[i] = addNumbers(this.values[i]!, delta);
    } else {
      this.buckets.splice(i, 0, bucket);
      this.values.splice(i, 0, delta);
    }
    this.total = addNumbers(this.total, delta);
  }

  /** The lowest bucket, or null when empty. */
  get lowest(): number | null {
    return this.buckets[0] ?? null;
  }

  /** Whether any bucket lies below `floor`. */
  hasBelow(floor: number): boolean {
    return this.buckets.length > 0 && this.buckets[0]! < floor;
  }

  /** Drops the buckets below `floor`. */
  evict(floor: number): void {
    if (this.buckets.length === 0 || this.buckets[0]! >= floor) return;
    const k = lowerBound(this.buckets, floor);
    for (let i = 0; i < k; i++) this.total = addNumbers(this.total, -this.values[i]!);
    this.buckets.splice(0, k);
    this.values.splice(0, k);
  }

  /** [total, b1, v1, b2, v2, ...] for a snapshot. */
  toJSON(): number[] {
    const out = [this.total];
    for (let i = 0; i < this.buckets.length; i++) out.push(this.buckets[i]!, this.values[i]!);
    return out;
  }

  static fromJSON([total, ...pairs]: number[]): SumSeries {
    const s = new SumSeries();
    s.total = total!;
    for (let i = 0; i < pairs.length; i += 2) {
      s.buckets.push(pairs[i]!);
      s.values.push(pairs[i + 1]!);
    }
    return s;
  }
}
