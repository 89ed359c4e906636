package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** Members of one Raft group in this JVM, for tests: free loopback ports, started together, a leader awaited. */
final class LocalMembers {
  private static final long WAIT_SECONDS = 60;
  /** The lowest port a member is given: above those of common local services. */
  private static final int LOWEST_PORT = 20_000;

  private LocalMembers() {}

  /**
   * Members with these ids, each on a loopback port that was free a moment ago: distinct (every probe is held
   * until all are found), and below the kernel's range of ports for outgoing connections, so that no
   * connection made before the member binds takes it. A port Ratis cannot bind ends the whole JVM (its
   * GrpcServicesImpl calls System.exit), which once crashed the test fork mid-run.
   */
  static List<RaftMember> onFreePorts(String... ids) throws IOException {
    List<ServerSocket> probes = new ArrayList<>();
    try {
      List<RaftMember> members = new ArrayList<>();
      for (String id : ids) {
        ServerSocket probe = freeListenerBelowEphemeralPorts();
        probes.add(probe);
        members.add(new RaftMember(id, "127.0.0.1", probe.getLocalPort()));
      }
      return members;
    } finally {
      for (ServerSocket probe : probes) {
        probe.close();
      }
    }
  }

  private static ServerSocket freeListenerBelowEphemeralPorts() throws IOException {
    int ceiling = ephemeralPortsStart();
    for (int attempt = 0; attempt < 100 && ceiling > LOWEST_PORT; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, ceiling);
      try {
        return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
      } catch (BindException taken) {
        // another listener has it: try another
      }
    }
    return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  /** Where the ports of outgoing connections start (Linux's ip_local_port_range; 32768 if unknown). */
  private static int ephemeralPortsStart() {
    try {
      // readAllLines: Files.readString read only the first byte of this procfs file (JDK 17)
      return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim()
          .split("\\s+")[0]);
    } catch (IOException | RuntimeException unknown) {
      return 32768;
    }
  }

  /** A replicator for each member, each on its own state and data directory under {@code dataDirs}, not started. */
  static List<RaftReplicator> create(Path dataDirs, List<RaftMember> members, List<? extends ReplicatedState> states,
      UnaryOperator<ReplicationConfig.Builder> settings) throws IOException {
    List<RaftReplicator> replicators = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
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
