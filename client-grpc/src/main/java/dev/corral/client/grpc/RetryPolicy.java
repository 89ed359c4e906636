package dev.corral.client.grpc;

import dev.corral.client.Code;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * How often and how patiently the client retries an operation that failed with a
 * retryable {@link Code} (connection loss, a server behind, not ready, an
 * operation timeout): at most {@link #maxAttempts()} attempts in all, waiting
 * an exponentially growing, randomised backoff between {@link #baseBackoff()}
 * and {@link #maxBackoff()} before each retry.
 *
 * <p>Only operations that are safe to repeat are retried: reads, {@code sync},
 * watches, {@code setData} of any version, deletes, read-only multis, and
 * protected creates. Each attempt also waits for the connection to come back,
 * for at most the client's connection timeout. An immutable value.
 */
public final class RetryPolicy {
  private static final RetryPolicy DEFAULT =
      exponentialBackoff(4, Duration.ofMillis(100), Duration.ofSeconds(2));

  private final int maxAttempts;
  private final Duration baseBackoff;
  private final Duration maxBackoff;

  private RetryPolicy(int maxAttempts, Duration baseBackoff, Duration maxBackoff) {
    this.maxAttempts = maxAttempts;
    this.baseBackoff = baseBackoff;
    this.maxBackoff = maxBackoff;
  }

  /**
   * At most {@code maxAttempts} attempts (the first included), waiting from
   * {@code baseBackoff}, doubling, up to {@code maxBackoff} between them.
   *
   * @throws IllegalArgumentException if {@code maxAttempts < 1}, a backoff is not
   *     positive, or {@code maxBackoff < baseBackoff}
   */
  public static RetryPolicy exponentialBackoff(int maxAttempts, Duration baseBackoff, Duration maxBackoff) {
    Objects.requireNonNull(baseBackoff, "baseBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, not " + maxAttempts);
    }
    if (baseBackoff.isNegative() || baseBackoff.isZero()) {
      throw new IllegalArgumentException("baseBackoff must be positive, not " + baseBackoff);
    }
    if (maxBackoff.compareTo(baseBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below baseBackoff " + baseBackoff);
    }
    return new RetryPolicy(maxAttempts, baseBackoff, maxBackoff);
  }

  /** One attempt only: every failure is reported as it is. */
  public static RetryPolicy none() {
    return new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1));
  }

  /** The default: 4 attempts, backoff from 100 ms up to 2 s. */
  public static RetryPolicy defaultPolicy() {
    return DEFAULT;
  }

  /** Attempts in all, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The wait before the first retry. */
  public Duration baseBackoff() {
    return baseBackoff;
  }

  /** The longest wait between two attempts. */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /** The backoff before attempt {@code failures + 1} (for {@code failures >= 1}), without randomisation. */
  Duration backoff(int failures) {
    long millis = baseBackoff.toMillis();
    for (int i = 1; i < failures && millis < maxBackoff.toMillis(); i++) {
      millis *= 2;
    }
    return Duration.ofMillis(Math.min(millis, maxBackoff.toMillis()));
  }

  /** This policy as a resilience4j configuration (the retry predicate is added by the caller). */
  RetryConfig.Builder<Object> toRetryConfig() {
    return RetryConfig.custom()
        .maxAttempts(maxAttempts)
        .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(baseBackoff, 2.0, 0.5, maxBackoff))
        .writableStackTraceEnabled(false);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryPolicy other && maxAttempts == other.maxAttempts
        && baseBackoff.equals(other.baseBackoff) && maxBackoff.equals(other.maxBackoff);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, baseBackoff, maxBackoff);
  }

  @Override
  public String toString() {
    return "RetryPolicy[maxAttempts=" + maxAttempts + ", backoff " + baseBackoff + " to " + maxBackoff + "]";
  }
}
