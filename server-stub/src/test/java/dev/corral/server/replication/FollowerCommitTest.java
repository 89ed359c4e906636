package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.corral.proto.internal.Txn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three members in one JVM. A follower hears of each commit as soon as the
 * leader makes it, without a log entry for it: Ratis would otherwise tell it
 * only with the next heartbeat, or append a metadata entry (one more write and
 * fsync on every member) after every commit.
 */
class FollowerCommitTest {
  private static final int WRITES = 20;
  /** Ratis sends a heartbeat every half of the minimum election timeout: here every 2.5 s. */
  private static final Duration ELECTION_TIMEOUT_MIN = Duration.ofSeconds(5);

  @TempDir
  Path dataDirs;

  private final List<RaftReplicator> running = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    running.forEach(RaftReplicator::close);
  }

  @Test
  void writesThroughAFollowerApplyThereBetweenHeartbeatsAndTakeOneLogEntryEach() throws Exception {
    List<RecordingState> states = List.of(new RecordingState(), new RecordingState(), new RecordingState());
    LocalMembers.startThree(dataDirs, states,
        b -> b.electionTimeout(ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MIN.multipliedBy(2)), running);
    int follower = (running.indexOf(LocalMembers.awaitLeader(running)) + 1) % 3;
    RaftReplicator forwarding = running.get(follower);
    Txns session = Txns.openSession(forwarding);

    // A proposal completes once the follower applied it. Told of commits only by heartbeats, the follower would
    // apply each of these writes at the next one (every 2.5 s): the 20 could not finish within 5 s.
    long deadline = System.nanoTime() + ELECTION_TIMEOUT_MIN.toNanos();
    for (int i = 0; i < WRITES; i++) {
      forwarding.propose(session.create("/w" + i)).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    List<Long> indices = states.get(follower).applied().stream()
        .filter(applied -> applied.entry().getTxnsList().stream().anyMatch(Txn::hasRequest))
        .map(RecordingState.Applied::index)
        .toList();
    assertEquals(WRITES, indices.size(), "entries holding the writes: " + indices);
    for (int i = 1; i < WRITES; i++) {
      assertEquals(indices.get(i - 1) + 1, indices.get(i), "an entry came between two writes: " + indices);
    }
  }
}
