package dev.corral.bench;

/**
 * Sizes of one run. Every loop is bounded by a count and by a time cap.
 *
 * @param rounds how many turns each system takes at W1, W2, W3 and W5: each measured size below is split
 *     evenly over the rounds, and the systems take turns round by round (the order reversed every round), so
 *     that a machine whose speed drifts during a run weighs on every system alike (on 2026-11-26, 30 rounds
 *     of one client's setData alternating between two servers of the same build ran from 1,200 to 2,300 a
 *     second over ten minutes, and their medians came within 1% of each other)
 * @param w1WarmMs W1 warm-up time: the warm-up rounds repeat until it has passed (the JIT of a
 *     fresh server on 2 cores is still compiling its hot paths after a single short round; a fresh client JVM
 *     and server together took 20-25 s of 8 writers to settle: Corral's setData/s per 5 s were 1,429, 1,959,
 *     3,970, 6,678, then 7,153-8,139. With 20 s, half of it spent in 1-client rounds, Corral's 8 writers
 *     measured 4,282-4,382/s on 2026-11-25; with 60 s, 6,018-6,344 the same day)
 * @param w1Ops1 W1 ops per phase with 1 client, over all rounds
 * @param w1Ops8 W1 ops per phase per client with 8 clients, over all rounds (full: 8,000 ops a round, a phase of
 *     a second or two, so that the last of 8 clients to finish weighs little on its wall time)
 * @param phaseCapMs time cap of any measured loop
 * @param w2WarmMs W2 least warm-up time: cycles repeat until it has passed, then on in windows of
 *     {@code min(2.5 s, w2WarmMs)} until the cycles/s are on a {@link Plateau}, up to {@code w2WarmCapMs} (500
 *     cycles, half a second, left the lock recipes of both systems cold: Corral's ran at 1,940 cycles/s over
 *     its first 3,000 and 2,200-2,500 after 6,000; after a fixed 10 s on a fresh server, 2,468 cycles, its five
 *     measured rounds ran at 364, 576, 783, 763 and 847 cycles/s, ZooKeeper's at 389-547, on 2026-11-26. At
 *     least 30 s: with 10 s, ZooKeeper's windows after W1 ran 399, 462, 440, 480 and counted as settled; with
 *     30 s, the same day, its windows held 517-574 for 15 s, then rose to 681-733 and settled there)
 * @param w2WarmCapMs W2 most warm-up time
 * @param w2Cycles W2 measured cycles
 * @param w3WarmMs W3 warm-up time
 * @param w3MeasureMs W3 measured time
 * @param w4Clean W4 clean-close trials
 * @param w4Kill W4 kill -9 trials
 * @param w5Warm W5 warm-up changes
 * @param w5Changes W5 measured changes
 * @param memNodes MEM nodes to load
 * @param w6WarmMs W6 least warm-up time of the writers; the warm-up then goes on in windows of
 *     {@code min(5 s, w6WarmMs)} until the rates are on a plateau ({@link Plateau}), up to
 *     {@code w6WarmCapMs} (three fresh server JVMs on 2 cores compile for a minute or two: Corral's ensemble went
 *     from 150 to 2,000 setData/s over its first 55 s, with the leader's JIT busy 1.2 cores meanwhile; on a slower
 *     day, with at least 30 s, its rates 497, 498 and 506 ended the warm-up at 65 s, and the measured window did
 *     715; ZooKeeper's were still rising at 45 s. At least 90 s for every system.)
 * @param w6WarmCapMs W6 most warm-up time
 * @param w6MeasureMs W6 measured time (throughput, and the leader changes of a run without faults)
 * @param w6Trials W6 kill -9 trials of the leader
 */
public record Params(String name, int rounds, long w1WarmMs, int w1Ops1, int w1Ops8, long phaseCapMs, long w2WarmMs, long w2WarmCapMs, int w2Cycles, long w3WarmMs,
    long w3MeasureMs, int w4Clean, int w4Kill, int w5Warm, int w5Changes, int memNodes, long w6WarmMs,
    long w6WarmCapMs, long w6MeasureMs, int w6Trials) {

  /** The full run. */
  public static Params full() {
    return new Params("full", 5, 60_000, 5000, 5000, 30_000, 30_000, 90_000, 3000, 3000, 20_000, 5, 5, 300, 2000, 100_000,
        90_000, 180_000, 30_000, 5);
  }

  /** A small version of everything, a couple of minutes for all systems. */
  public static Params quick() {
    return new Params("quick", 2, 2000, 300, 100, 8_000, 1000, 4000, 300, 1000, 4000, 1, 1, 50, 200, 20_000, 2000, 8000, 10_000, 2);
  }

  /** Tiny, for the unit test (Corral only). */
  public static Params tiny() {
    return new Params("tiny", 2, 0, 30, 10, 5_000, 100, 300, 30, 300, 1000, 1, 1, 10, 30, 1000, 1000, 1000, 2000, 1);
  }
}
