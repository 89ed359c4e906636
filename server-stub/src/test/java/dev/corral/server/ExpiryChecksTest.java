package dev.corral.server;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ExpiryChecksTest {
  private static final long HALF_TICK = TimeUnit.SECONDS.toNanos(1);

  @Test
  void theNextCheckComesJustAfterTheNextSessionIsDue() {
    long due = TimeUnit.MILLISECONDS.toNanos(300);
    assertEquals(due + ExpiryChecks.PAST_DUE_NANOS, ExpiryChecks.waitNanos(due, HALF_TICK));
  }

  @Test
  void checksComeAtLeastEveryMaxWaitAndNeverBackToBack() {
    assertEquals(HALF_TICK, ExpiryChecks.waitNanos(Long.MAX_VALUE, HALF_TICK), "nothing due (or not the leader)");
    assertEquals(HALF_TICK, ExpiryChecks.waitNanos(TimeUnit.SECONDS.toNanos(30), HALF_TICK));
    assertEquals(ExpiryChecks.MIN_WAIT_NANOS, ExpiryChecks.waitNanos(1, HALF_TICK));
    assertEquals(HALF_TICK, ExpiryChecks.waitNanos(0, HALF_TICK), "a close that failed is tried at the usual pace");
  }

  @Test
  void aFailingCheckDoesNotEndTheChecks() {
    ScheduledExecutorService duties = Executors.newSingleThreadScheduledExecutor();
    try {
      AtomicInteger calls = new AtomicInteger();
      ExpiryChecks.start(duties, () -> {
        if (calls.incrementAndGet() == 1) {
          throw new IllegalStateException("failed on purpose");
        }
        return 0;
      }, TimeUnit.MILLISECONDS.toNanos(20));
      await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() >= 3);
    } finally {
      duties.shutdownNow();
    }
  }
}
