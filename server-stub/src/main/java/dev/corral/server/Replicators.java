package dev.corral.server;

import dev.corral.server.replication.RaftMember;
import dev.corral.server.replication.RaftReplicator;
import dev.corral.server.replication.ReplicationConfig;
import dev.corral.server.replication.Replicator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** Builds and starts the replicator a server runs on. */
final class Replicators {
  private Replicators() {}

  /**
   * This server's member of the Raft group (a group of one on loopback unless
   * the config lists an ensemble), replaying its log into {@code core} before
   * returning.
   */
  static Replicator raft(ServerConfig config, ServerCore core) {
    List<RaftMember> members = config.members().isEmpty()
        ? List.of(new RaftMember(ServerConfig.SINGLE_MEMBER_ID, "127.0.0.1", config.raftPort()))
        : config.members().stream().map(m -> new RaftMember(m.id(), m.host(), m.peerPort())).toList();
    ReplicationConfig replication = ReplicationConfig.builder()
        .dataDir(config.dataDir())
        .members(config.memberId(), members)
        .snapshotThreshold(config.snapshotEvery())
        .electionTimeout(config.electionTimeoutMin(), config.electionTimeoutMax())
        .operationTimeout(config.operationTimeout())
        .logSegmentBytes(config.logSegmentBytes())
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
