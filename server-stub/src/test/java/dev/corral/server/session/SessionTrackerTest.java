package dev.corral.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SessionTrackerTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final SessionTracker tracker = new SessionTracker(now::get);

  private void advanceMs(long ms) {
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  @Test
  void nothingIsDueWithoutSessions() {
    assertEquals(Long.MAX_VALUE, tracker.nanosUntilNextExpiry());
  }

  @Test
  void theNextExpiryIsTheSessionClosestToItsTimeout() {
    tracker.add(1, 4_000);
    advanceMs(1_000);
    tracker.add(2, 2_000);
    assertEquals(2_000, ms(tracker.nanosUntilNextExpiry())); // session 2: 2,000 left; session 1: 3,000
    advanceMs(1_500);
    tracker.touch(2);
    assertEquals(1_500, ms(tracker.nanosUntilNextExpiry())); // session 1 now: heard 2,500 ago
  }

  @Test
  void aSessionPastItsTimeoutIsDueNowUntilItIsTakenForClosing() {
    tracker.add(1, 2_000);
    tracker.add(2, 6_000);
    advanceMs(2_001);
    assertEquals(0, tracker.nanosUntilNextExpiry());
    assertEquals(List.of(1L), tracker.takeExpired());
    assertEquals(6_000 - 2_001, ms(tracker.nanosUntilNextExpiry()));
    tracker.closeFailed(1);
    assertEquals(0, tracker.nanosUntilNextExpiry(), "a close that failed is due again");
  }

  @Test
  void aSessionIsExpiredOnlyStrictlyAfterItsTimeout() {
    tracker.add(1, 2_000);
    advanceMs(2_000);
    assertEquals(List.of(), tracker.takeExpired());
    now.incrementAndGet();
    assertEquals(List.of(1L), tracker.takeExpired());
  }
}
