package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;

import dev.corral.server.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** Members of one Raft group in this JVM, for tests: free loopback ports, started together, a leader awaited. */
final class LocalMembers {
  private static final long WAIT_SECONDS = 60;

  private LocalMembers() {}

  /**
   * Members with these ids, each on its own loopback port (see {@link LoopbackPorts} for which and why); a fatal
   * Ratis error of theirs fails the test instead of ending the test JVM
   * ({@link RaftReplicator#keepTheJvmOnFatalErrors}).
   */
  static List<RaftMember> onFreePorts(String... ids) {
    RaftReplicator.keepTheJvmOnFatalErrors();
    List<Integer> ports = LoopbackPorts.free(ids.length);
    List<RaftMember> members = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      members.add(new RaftMember(ids[i], "127.0.0.1", ports.get(i)));
    }
    return members;
  }

  /**
   * A replicator for each of the first {@code states.size()} members (the others left to the test), each on its
   * state and a data directory of its own under {@code dataDirs}, not started.
   */
  static List<RaftReplicator> create(Path dataDirs, List<RaftMember> members, List<? extends ReplicatedState> states,
      UnaryOperator<ReplicationConfig.Builder> settings) throws IOException {
    List<RaftReplicator> replicators = new ArrayList<>();
    for (int i = 0; i < states.size(); i++) {
      RaftMember self = members.get(i);
      replicators.add(RaftReplicator.create(settings.apply(ReplicationConfig.builder()
          .dataDir(Files.createDirectories(dataDirs.resolve(self.id())))
          .members(self.id(), members)).build(), states.get(i)));
    }
    return replicators;
  }

  /**
   * Members "1", "2" and "3" on free ports, each over its state of {@code states}, added to {@code running}
   * (which the test closes afterwards, even if a start fails) and started together.
   */
  static void startThree(Path dataDirs, List<? extends ReplicatedState> states,
      UnaryOperator<ReplicationConfig.Builder> settings, List<RaftReplicator> running) throws Exception {
    running.addAll(create(dataDirs, onFreePorts("1", "2", "3"), states, settings));
    startTogether(running);
  }

  /** Starts the replicators at once (each one's start waits for the others) and returns when all have. */
  static void startTogether(List<RaftReplicator> replicators) throws Exception {
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (RaftReplicator replicator : replicators) {
      starts.add(CompletableFuture.runAsync(() -> {
        try {
          replicator.start();
        } catch (IOException | InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }));
    }
    CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  /** The one of {@code among} that leads, once one does. */
  static RaftReplicator awaitLeader(List<RaftReplicator> among) {
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> among.stream().anyMatch(RaftReplicator::isLeader));
    return among.stream().filter(RaftReplicator::isLeader).findFirst().orElseThrow();
  }
}
