package dev.corral.server;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the session expiry check when the next session may time out, so that
 * a silent session is closed at its timeout rather than up to a check period
 * later; at least every {@code maxWait}, which also picks up a leadership
 * taken meanwhile and sessions added since.
 */
final class ExpiryChecks implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ExpiryChecks.class);
  /** The shortest wait between checks. */
  static final long MIN_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** A session is over its time only strictly after it: look this much past it. */
  static final long PAST_DUE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ScheduledExecutorService duties;
  private final LongSupplier check;
  private final long maxWaitNanos;

  private ExpiryChecks(ScheduledExecutorService duties, LongSupplier check, long maxWaitNanos) {
    this.duties = duties;
    this.check = check;
    this.maxWaitNanos = maxWaitNanos;
  }

  /**
   * Starts the checks on {@code duties}: {@code check} expires what is due and
   * returns the nanoseconds until the next session may be.
   */
  static void start(ScheduledExecutorService duties, LongSupplier check, long maxWaitNanos) {
    new ExpiryChecks(duties, check, maxWaitNanos).scheduleIn(maxWaitNanos);
  }

  @Override
  public void run() {
    long dueNanos = Long.MAX_VALUE;
    try {
      dueNanos = check.getAsLong();
    } catch (RuntimeException e) {
      log.error("Session expiry check failed", e);
    }
    scheduleIn(waitNanos(dueNanos, maxWaitNanos));
  }

  /**
   * How long to wait before the next check, the next session being due in
   * {@code dueNanos}. Due now is a session whose close could not be proposed
   * (the check took every other): it is tried again at the usual pace, not
   * at once, as a failing proposal would fail again.
   */
  static long waitNanos(long dueNanos, long maxWaitNanos) {
    if (dueNanos == 0) {
      return maxWaitNanos;
    }
    long pastDue = dueNanos > Long.MAX_VALUE - PAST_DUE_NANOS ? Long.MAX_VALUE : dueNanos + PAST_DUE_NANOS;
    return Math.max(MIN_WAIT_NANOS, Math.min(maxWaitNanos, pastDue));
  }

  private void scheduleIn(long nanos) {
    try {
      duties.schedule(this, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopped) {
      // the server is closing
    }
  }
}
