package dev.corral.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * When a warm-up's rate has settled, and the warm-up loop that runs until it
 * has: the rule by which W2's and W6's warm-ups end, so that every system is
 * measured once its JIT has settled.
 */
final class Plateau {
  /** How many windows in a row must agree. */
  static final int WINDOWS = 3;

  private Plateau() {}

  /** One window of a warm-up: runs for about {@code windowMs} and returns its rate, per second. */
  @FunctionalInterface
  interface Window<E extends Exception> {
    double run(long windowMs) throws E;
  }

  /** How a run until the rate settled went: its length, its windows' rates, and whether it settled. */
  record Settling(long elapsedMs, long windowMs, String unit, List<Double> rates, boolean settled) {
    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%.0f s%s, %s per %d ms window: %s", elapsedMs / 1e3,
          settled ? "" : " (not settled)", unit, windowMs,
          rates.stream().map(r -> String.format(Locale.ROOT, "%.0f", r)).collect(Collectors.joining(" ")));
    }
  }

  /**
   * Runs {@code window} in windows of {@code windowMs} for at least {@code minMs}, then until the rates
   * have {@link #reached} a plateau, and at most {@code capMs}.
   */
  static <E extends Exception> Settling runUntilSettled(long windowMs, long minMs, long capMs, String unit,
      Window<E> window) throws E {
    return runUntilSettled(windowMs, minMs, capMs, unit, window, System::nanoTime);
  }

  /** As above, its time read from {@code nanoClock}. */
  static <E extends Exception> Settling runUntilSettled(long windowMs, long minMs, long capMs, String unit,
      Window<E> window, LongSupplier nanoClock) throws E {
    long start = nanoClock.getAsLong();
    List<Double> rates = new ArrayList<>();
    while (true) {
      rates.add(window.run(windowMs));
      long elapsedMs = (nanoClock.getAsLong() - start) / 1_000_000;
      boolean settled = reached(rates);
      if (elapsedMs >= capMs || (elapsedMs >= minMs && settled)) {
        return new Settling(elapsedMs, windowMs, unit, rates, settled);
      }
    }
  }

  /**
   * Whether the last {@value #WINDOWS} rates lie within 10% of each other and, once there are
   * twice as many, their mean lies within 10% of the mean of the {@value #WINDOWS} before them.
   * The first alone ended warm-ups on a dip while still climbing: Corral's at 635, 764, 729 setData/s
   * (35 s; then 1,767/s measured), and at 1,721, 1,183, 1,082, 1,111 (120 s; 1,710/s measured, 1,800-2,000
   * a minute later). Comparing a window with the one or two before it had ended them sooner still.
   */
  static boolean reached(List<Double> rates) {
    int n = rates.size();
    if (n < WINDOWS || !withinTenPercent(rates.subList(n - WINDOWS, n))) {
      return false;
    }
    if (n < 2 * WINDOWS) {
      return true;
    }
    double last = mean(rates.subList(n - WINDOWS, n));
    double before = mean(rates.subList(n - 2 * WINDOWS, n - WINDOWS));
    return withinTenPercent(List.of(last, before));
  }

  private static boolean withinTenPercent(List<Double> rates) {
    double min = rates.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
    double max = rates.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    return max <= min * 1.1;
  }

  private static double mean(List<Double> rates) {
    return rates.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
  }
}
