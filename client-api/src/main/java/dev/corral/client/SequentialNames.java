package dev.corral.client;

import java.util.Comparator;
import java.util.List;

/**
 * Names of sequential nodes end in a 10-digit counter ("lock-0000000042",
 * or with protection "_c_<guid>-lock-0000000042"). Recipes order their
 * participants by that counter, whatever the prefix.
 */
public final class SequentialNames {
  /** Digits of the sequential suffix. */
  public static final int DIGITS = 10;

  /** Orders names by their sequence counter (then by name, for ties). */
  public static final Comparator<String> BY_SEQUENCE =
      Comparator.comparingLong(SequentialNames::sequenceOf).thenComparing(Comparator.naturalOrder());

  private SequentialNames() {}

  /** The counter at the end of {@code name}; -1 if it does not end in 10 digits. */
  public static long sequenceOf(String name) {
    if (name.length() < DIGITS) {
      return -1;
    }
    String suffix = name.substring(name.length() - DIGITS);
    for (int i = 0; i < DIGITS; i++) {
      if (!Character.isDigit(suffix.charAt(i)) || suffix.charAt(i) > '9') {
        return -1;
      }
    }
    return Long.parseLong(suffix);
  }

  /** {@code names} sorted by sequence counter, skipping names without one. */
  public static List<String> sorted(List<String> names) {
    return names.stream().filter(n -> sequenceOf(n) >= 0).sorted(BY_SEQUENCE).toList();
  }
}
