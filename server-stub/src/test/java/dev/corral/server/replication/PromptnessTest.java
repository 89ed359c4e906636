package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.server.replication.GroupCommitProposer.Promptness;
import org.junit.jupiter.api.Test;

/** The batch wait's rule for which sessions come back promptly as a rule; times in nanoseconds, made up. */
class PromptnessTest {
  private static final long WAIT = 1_000;
  private static final long PROMPT = WAIT / 2;
  private static final long LATE = WAIT * 5;

  /** A session answered at {@code now} and next queued {@code after} later; its promptness as queued. */
  private static final class Session {
    private long now;
    private Promptness promptness = Promptness.firstAnswered(0);

    Promptness comesBack(long after) {
      now += after;
      promptness = promptness.queued(now, WAIT);
      Promptness asQueued = promptness;
      now += 10; // answered
      promptness = promptness.answered(now);
      return asQueued;
    }
  }

  @Test
  void aNewSessionIsExpectedBackFromItsThirteenthPromptReturnOn() {
    Session session = new Session();
    for (int i = 1; i <= 12; i++) {
      assertFalse(session.comesBack(PROMPT).expectedBack(), "prompt return " + i);
    }
    assertTrue(session.comesBack(PROMPT).expectedBack());
  }

  @Test
  void aWriterInALoopStaysExpectedBackThroughALateReturn() {
    Session session = new Session();
    for (int i = 0; i < 40; i++) {
      session.comesBack(PROMPT);
    }

    assertTrue(session.comesBack(LATE).expectedBack());
    assertTrue(session.comesBack(PROMPT).expectedBack());
  }

  @Test
  void aSessionBackPromptlyOnlyTwiceBetweenPausesIsNeverExpectedBack() {
    Session session = new Session();
    for (int burst = 0; burst < 100; burst++) { // a lock holder: its write after a wait, its release, its next request
      assertFalse(session.comesBack(LATE).expectedBack(), "burst " + burst);
      assertFalse(session.comesBack(PROMPT).expectedBack(), "burst " + burst);
      assertFalse(session.comesBack(PROMPT).expectedBack(), "burst " + burst);
    }
  }
}
