package dev.corral.client.recipe;

import dev.corral.client.CoordinationClient;
import java.util.concurrent.TimeUnit;

/**
 * When a blocking call must give up, measured with {@link System#nanoTime()};
 * saturating, never overflowing. Shared by the recipes.
 */
public final class Deadline {
  private static final Deadline NEVER = new Deadline(false, 0);

  private final boolean bounded;
  private final long endNanos;

  private Deadline(boolean bounded, long endNanos) {
    this.bounded = bounded;
    this.endNanos = endNanos;
  }

  /** A deadline that never passes. */
  public static Deadline never() {
    return NEVER;
  }

  /** The deadline {@code time} from now; a negative time is treated as zero (one attempt, no wait). */
  public static Deadline after(long time, TimeUnit unit) {
    long nanos = Math.max(0, unit.toNanos(time));
    if (nanos >= Long.MAX_VALUE / 4) {
      return NEVER; // centuries: would overflow System.nanoTime() arithmetic
    }
    return new Deadline(true, System.nanoTime() + nanos);
  }

  /** Nanoseconds left (never negative); {@link Long#MAX_VALUE} for a deadline that never passes. */
  public long remainingNanos() {
    return bounded ? Math.max(0, endNanos - System.nanoTime()) : Long.MAX_VALUE;
  }

  public boolean expired() {
    return bounded && endNanos - System.nanoTime() <= 0;
  }

  /**
   * Waits while {@code client} is not connected, at most until this deadline,
   * so that a recipe's next call is not made while the connection is down (it
   * would wait for the connection, past the deadline). False if the deadline
   * passed first; true once connected, or if the client closed (the next call
   * says so).
   */
  public boolean awaitConnection(CoordinationClient client) throws InterruptedException {
    return client.state().isConnected() || client.blockUntilConnected(remainingNanos(), TimeUnit.NANOSECONDS)
        || !expired();
  }

  /** The time left, but at most {@code maxNanos}: how long one wait may last before re-checking. */
  public long sliceNanos(long maxNanos) {
    return Math.min(remainingNanos(), maxNanos);
  }
}
