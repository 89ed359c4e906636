package dev.corral.bench;

/**
 * What one system measured of one workload, added up over its rounds: every
 * latency, and the ops done over the measured time.
 */
final class Tally {
  private final Samples latencies = new Samples();
  private long nanos;

  /** Adds a round: its latencies (one per op) and how long it took. */
  void add(Samples round, long roundNanos) {
    latencies.addAll(round);
    nanos += roundNanos;
  }

  Samples latencies() {
    return latencies;
  }

  /** Ops per second over the measured time of every round; NaN before any. */
  double perSecond() {
    return nanos == 0 ? Double.NaN : latencies.size() / (nanos / 1e9);
  }
}
