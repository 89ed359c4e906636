package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.corral.server.replication.LeaderlessWatch.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaderlessWatchTest {
  private static final long MS = 1_000_000;

  @Test
  void aMemberStopsServingOnceNoLeaderWasHeardForTheLimitAndServesAgainWhenOneIs() {
    LeaderlessWatch watch = new LeaderlessWatch(Duration.ofSeconds(1), 0);

    assertEquals(Verdict.SERVING, watch.check(true, 100 * MS));
    assertEquals(Verdict.WAITING, watch.check(false, 1_000 * MS), "900 ms without a leader: an election, maybe");
    assertEquals(Verdict.LEADERLESS, watch.check(false, 1_100 * MS));
    assertEquals(Verdict.LEADERLESS, watch.check(false, 5_000 * MS), "told again on every check while it lasts");
    assertEquals(Duration.ofMillis(4_900), watch.silence(5_000 * MS));
    assertEquals(Verdict.SERVING_AGAIN, watch.check(true, 5_100 * MS));
    assertEquals(Verdict.SERVING, watch.check(true, 5_200 * MS));
    assertEquals(Verdict.WAITING, watch.check(false, 6_100 * MS));
  }

  @Test
  void theLimitIsTwoElectionTimeoutsAtLeastASecondButNeverMoreThanATick() {
    assertEquals(Duration.ofSeconds(1), LeaderlessWatch.limitFor(Duration.ofMillis(400), Duration.ofSeconds(2)),
        "the server's defaults");
    assertEquals(Duration.ofMillis(1_600), LeaderlessWatch.limitFor(Duration.ofMillis(800), Duration.ofSeconds(2)));
    assertEquals(Duration.ofSeconds(1), LeaderlessWatch.limitFor(Duration.ofSeconds(2), Duration.ofSeconds(1)),
        "sessions of two ticks may expire at the majority 1.5 ticks after the cut: their clients must hear first");
    assertEquals(Duration.ofMillis(300), LeaderlessWatch.limitFor(Duration.ofMillis(400), Duration.ofMillis(300)));
  }
}
