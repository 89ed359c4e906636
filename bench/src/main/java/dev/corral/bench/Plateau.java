package dev.corral.bench;

import java.util.List;

/**
 * When a warm-up's rate has settled: the rule by which W2's and W6's
 * warm-ups end, so that every system is measured once its JIT has settled.
 */
final class Plateau {
  /** How many windows in a row must agree. */
  static final int WINDOWS = 3;

  private Plateau() {}

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
