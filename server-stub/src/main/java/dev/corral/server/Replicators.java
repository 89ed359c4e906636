package dev.corral.server;

import dev.corral.server.replication.LocalReplicator;
import dev.corral.server.replication.RaftMember;
import dev.corral.server.replication.RaftReplicator;
import dev.corral.server.replication.ReplicationConfig;
import dev.corral.server.replication.Replicator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds and starts the replicator a server runs on. */
final class Replicators {
  private static final Logger LOG = LoggerFactory.getLogger(Replicators.class);

  private Replicators() {}

  /**
   * This server's replicator, with its log replayed into {@code core}: a
   * {@link LocalReplicator} on a single server, a member of the Raft group
   * when the config lists an ensemble. A single server whose data directory
   * already holds a Raft group's storage (written before single servers had a
   * log of their own) goes on as a Raft group of one, so that its data is kept.
   */
  static Replicator start(ServerConfig config, ServerCore core) {
    ReplicationConfig replication = replicationConfig(config);
    try {
      if (config.members().isEmpty() && !RaftReplicator.storageIn(config.dataDir())) {
        LocalReplicator replicator = LocalReplicator.create(replication, core);
        replicator.start();
        return replicator;
      }
      if (config.members().isEmpty()) {
        LOG.info("{} holds a Raft log written by an earlier version: this single server goes on as a Raft group"
            + " of one", config.dataDir());
      }
      RaftReplicator replicator = RaftReplicator.create(replication, core);
      replicator.start();
      return replicator;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the log in " + config.dataDir(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the Raft log", e);
    }
  }

  /** The replication settings of this server (a group of one on loopback unless the config lists an ensemble). */
  static ReplicationConfig replicationConfig(ServerConfig config) {
    List<RaftMember> members = config.members().isEmpty()
        ? List.of(new RaftMember(ServerConfig.SINGLE_MEMBER_ID, "127.0.0.1", config.raftPort()))
        : config.members().stream().map(m -> new RaftMember(m.id(), m.host(), m.peerPort())).toList();
    ReplicationConfig.Builder builder = ReplicationConfig.builder()
        .dataDir(config.dataDir())
        .members(config.memberId(), members)
        .snapshotThreshold(config.snapshotEvery())
        .electionTimeout(config.electionTimeoutMin(), config.electionTimeoutMax())
        .sessionTick(config.tick())
        .operationTimeout(config.operationTimeout());
    config.logSegmentBytes().ifPresent(builder::logSegmentBytes);
    return builder.build();
  }
}
