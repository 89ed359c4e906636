package dev.corral.server;

import dev.corral.server.replication.RaftMember;
import dev.corral.server.replication.RaftReplicator;
import dev.corral.server.replication.ReplicationConfig;
import dev.corral.server.replication.Replicator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/** Builds and starts the replicator a server runs on. */
final class Replicators {
  /** The member id of a single server: stable, since the Raft log names it. */
  static final String SINGLE_MEMBER_ID = "1";

  private Replicators() {}

  /** A Raft group of one on loopback, replaying its log into {@code core} before returning. */
  static Replicator raft(ServerConfig config, ServerCore core) {
    ReplicationConfig replication = ReplicationConfig.builder()
        .dataDir(config.dataDir())
        .singleMember(new RaftMember(SINGLE_MEMBER_ID, "127.0.0.1", config.raftPort()))
        .snapshotThreshold(config.snapshotEvery())
        // A group of one cannot have a spurious election; a short timeout only
        // shortens the wait before it leads at start.
        .electionTimeout(Duration.ofMillis(100), Duration.ofMillis(200))
        .build();
    try {
      RaftReplicator replicator = RaftReplicator.create(replication, core);
      replicator.start();
      return replicator;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the Raft log in " + config.dataDir(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the Raft log", e);
    }
  }
}
