package dev.corral.bench;

import java.util.Arrays;

/** A growable array of latencies in nanoseconds, and its percentiles. Not thread-safe: one per thread, then merged. */
public final class Samples {
  private long[] values = new long[1024];
  private int size;

  public void add(long nanos) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = nanos;
  }

  public void addAll(Samples other) {
    for (int i = 0; i < other.size; i++) {
      add(other.values[i]);
    }
  }

  public int size() {
    return size;
  }

  /** The values in recording order (a copy). */
  public long[] toArray() {
    return Arrays.copyOf(values, size);
  }

  /** The {@code p}-th percentile (0..100) by nearest rank, in nanoseconds; NaN if empty. */
  public double percentile(double p) {
    return percentile(sorted(), p);
  }

  public long[] sorted() {
    long[] sorted = toArray();
    Arrays.sort(sorted);
    return sorted;
  }

  /** Nearest-rank percentile of an ascending array; NaN if empty. */
  public static double percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    if (p <= 0) {
      return sorted[0];
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }

  /** Median in milliseconds. */
  public double p50Ms() {
    return percentile(50) / 1e6;
  }

  /** 99th percentile in milliseconds. */
  public double p99Ms() {
    return percentile(99) / 1e6;
  }
}
