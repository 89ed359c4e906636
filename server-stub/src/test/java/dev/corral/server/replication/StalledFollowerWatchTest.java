package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.server.replication.StalledFollowerWatch.Follower;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StalledFollowerWatchTest {
  private static final long SECOND = 1_000_000_000L;
  private final StalledFollowerWatch watch = new StalledFollowerWatch(Duration.ofSeconds(20), Duration.ofSeconds(1));

  @Test
  void aFollowerThatAnswersButStaysBehindWithoutProgressIsNamedOnceTheStallHasLasted() {
    Follower stuck = new Follower("2", 100, 50);
    Follower fine = new Follower("3", 500, 50);
    assertTrue(watch.check(4, 500, List.of(stuck, fine), 0).isEmpty());
    assertTrue(watch.check(4, 600, List.of(stuck, new Follower("3", 600, 50)), 19 * SECOND).isEmpty());
    assertEquals(Optional.of(stuck), watch.check(4, 700, List.of(stuck, new Follower("3", 700, 50)), 20 * SECOND));
  }

  @Test
  void aFollowerThatCatchesUpSlowlyIsNotStalled() {
    for (int s = 0; s <= 60; s++) {
      assertTrue(watch.check(4, 10_000, List.of(new Follower("2", 100 + s, 50)), s * SECOND).isEmpty());
    }
  }

  @Test
  void aFollowerThatDoesNotAnswerIsDownNotStalled() {
    for (int s = 0; s <= 60; s++) {
      assertTrue(watch.check(4, 10_000, List.of(new Follower("2", 100, 5_000)), s * SECOND).isEmpty());
    }
  }

  @Test
  void aFollowerUpToTheCommitIndexIsNotBehind() {
    for (int s = 0; s <= 60; s++) {
      assertTrue(watch.check(4, 100, List.of(new Follower("2", 100, 50)), s * SECOND).isEmpty());
    }
  }

  @Test
  void aNewTermStartsOver() {
    Follower stuck = new Follower("2", 100, 50);
    watch.check(4, 500, List.of(stuck), 0);
    assertTrue(watch.check(5, 500, List.of(stuck), 20 * SECOND).isEmpty());
    assertEquals(Optional.of(stuck), watch.check(5, 500, List.of(stuck), 40 * SECOND));
  }

  @Test
  void aStuckFollowerWhoseRepliesComeSlowerThanTheElectionTimeoutIsStillNamed() {
    StalledFollowerWatch defaults = StalledFollowerWatch.forElectionTimeout(Duration.ofSeconds(20), Duration.ofMillis(400));
    Optional<Follower> named = Optional.empty();
    for (int tenths = 0; tenths <= 200 && named.isEmpty(); tenths += 5) {
      long lastReplyAgoMs = tenths % 10 == 0 ? 450 : 1_500; // gaps of up to 1.5 s, as an appender retrying slowly
      named = defaults.check(4, 1_000 + tenths, List.of(new Follower("2", -1, lastReplyAgoMs)), tenths * SECOND / 10);
    }
    assertEquals("2", named.map(Follower::id).orElse("never named"));
  }

  @Test
  void aFollowerSilentLongerThanTheAnsweringLimitIsDownNotStalled() {
    StalledFollowerWatch defaults = StalledFollowerWatch.forElectionTimeout(Duration.ofSeconds(20), Duration.ofMillis(400));
    long silentMs = StalledFollowerWatch.ANSWERING_AT_LEAST.toMillis() + 1;
    for (int s = 0; s <= 60; s++) {
      assertTrue(defaults.check(4, 10_000, List.of(new Follower("2", 100, silentMs)), s * SECOND).isEmpty());
    }
  }

  @Test
  void aFollowerThatStopsAnsweringForAWhileStartsOverWhenItAnswersAgain() {
    watch.check(4, 500, List.of(new Follower("2", 100, 50)), 0);
    watch.check(4, 500, List.of(new Follower("2", 100, 5_000)), 10 * SECOND);
    assertTrue(watch.check(4, 500, List.of(new Follower("2", 100, 50)), 20 * SECOND).isEmpty());
    assertTrue(watch.check(4, 500, List.of(new Follower("2", 100, 50)), 39 * SECOND).isEmpty());
    assertTrue(watch.check(4, 500, List.of(new Follower("2", 100, 50)), 40 * SECOND).isPresent());
  }
}
