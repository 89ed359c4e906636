package dev.corral.server.replication;

/** The replicator contract on a Raft group of one. */
class RaftReplicatorTest extends ReplicatorContractTest<RaftReplicator> {
  @Override
  RaftReplicator create(ReplicationConfig config, RecordingState state) throws java.io.IOException {
    return RaftReplicator.create(config, state);
  }

  @Override
  void start(RaftReplicator replicator) throws Exception {
    replicator.start();
  }

  /** Ratis's single-file snapshots: {@code snapshot.<term>_<index>}. */
  @Override
  long snapshotIndex(String fileName) {
    return fileName.matches("snapshot\\.\\d+_\\d+") ? Long.parseLong(fileName.substring(fileName.indexOf('_') + 1)) : -1;
  }

  /** Ratis's segments: {@code log_<first>-<last>} when closed, {@code log_inprogress_<first>} while open. */
  @Override
  long segmentStart(String fileName) {
    return fileName.matches("log_(inprogress_)?\\d+(-\\d+)?")
        ? Long.parseLong(fileName.replaceAll("log_(inprogress_)?(\\d+).*", "$2")) : -1;
  }
}
