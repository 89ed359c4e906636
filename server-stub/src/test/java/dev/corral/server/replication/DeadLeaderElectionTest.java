package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Three members in one JVM: a leader whose process is gone is replaced without waiting out the timeout. */
class DeadLeaderElectionTest {
  private static final long WAIT_SECONDS = 60;

  @TempDir
  Path dataDirs;

  private final List<RaftReplicator> replicators = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    replicators.forEach(RaftReplicator::close);
  }

  @Test
  void aFollowerStartsAnElectionAsSoonAsTheLeadersPortRefusesConnections() throws Exception {
    List<RaftMember> members = LocalMembers.onFreePorts("1", "2", "3");
    for (RaftMember self : members) {
      RaftReplicator replicator = RaftReplicator.create(ReplicationConfig.builder()
          .dataDir(Files.createDirectory(dataDirs.resolve(self.id())))
          .members(self.id(), members)
          // the timeouts of an ensemble in one JVM; the watch looks at the leader after 0.6 s of silence
          .electionTimeout(Duration.ofSeconds(1), Duration.ofSeconds(2))
          .build(), new RecordingState());
      replicators.add(replicator);
    }
    LocalMembers.startTogether(replicators);
    RaftReplicator leader = LocalMembers.awaitLeader(replicators);
    long term = leader.view().term();
    List<RaftReplicator> survivors = replicators.stream().filter(r -> r != leader).toList();
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> survivors.stream()
        .allMatch(r -> r.view().leaderId().equals(leader.view().memberId())));

    leader.close(); // its ports close: connections to them are refused
    RaftReplicator next = LocalMembers.awaitLeader(survivors);

    assertTrue(next.view().term() > term);
    assertEquals(1, survivors.stream().mapToLong(RaftReplicator::electionsForDeadLeaders).sum(),
        "one survivor started the election on seeing the leader gone (not after the 1-2 s timeout)");
  }
}
