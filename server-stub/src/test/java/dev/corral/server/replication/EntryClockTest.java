package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class EntryClockTest {
  @Test
  void stampsNeverGoBackwardsWhenTheClockDoes() {
    EntryClock clock = new EntryClock(new BackwardsClock(5_000, 1_000));

    assertEquals(5_000, clock.stamp());
    assertEquals(5_000, clock.stamp());
  }

  @Test
  void entriesAreStampedNoEarlierThanAnEntryAppliedFromAnEarlierLeader() {
    EntryClock clock = new EntryClock(new BackwardsClock(5_000, 1));
    clock.applied(9_000);

    assertEquals(9_000, clock.stamp());
  }
}
