package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnreadyLeaderWatchTest {
  private static final long SECOND = 1_000_000_000L;
  private final UnreadyLeaderWatch watch = new UnreadyLeaderWatch(Duration.ofSeconds(2));

  @Test
  void aLeaderNotReadyForTheLimitIsStuck() {
    assertFalse(watch.stuck(5, false, 0, 0));
    assertFalse(watch.stuck(5, false, 0, SECOND));
    assertTrue(watch.stuck(5, false, 0, 2 * SECOND));
  }

  @Test
  void aLeaderThatBecameReadyIsNeverStuckInThatTerm() {
    watch.stuck(5, false, 0, 0);
    assertFalse(watch.stuck(5, true, 0, SECOND));
    assertFalse(watch.stuck(5, false, 0, 10 * SECOND), "ready once in this term: Ratis does not un-ready a leader");
  }

  @Test
  void eachTermIsTimedFromItsFirstLook() {
    watch.stuck(5, false, 0, 0);
    assertFalse(watch.stuck(6, false, 0, 10 * SECOND));
    assertTrue(watch.stuck(6, false, 0, 12 * SECOND));
  }

  @Test
  void followersThatMakeProgressRestartTheClock() {
    assertFalse(watch.stuck(5, false, 100, 0));
    assertFalse(watch.stuck(5, false, 150, SECOND));
    assertFalse(watch.stuck(5, false, 150, 2 * SECOND));
    assertTrue(watch.stuck(5, false, 150, 3 * SECOND));
  }
}
