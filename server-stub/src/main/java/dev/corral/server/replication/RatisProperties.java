package dev.corral.server.replication;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Every Ratis setting Corral relies on, in one place, each with its reason. */
final class RatisProperties {
  private static final String APPEND_ENTRIES =
      RaftServerProtocolServiceGrpc.getAppendEntriesMethod().getFullMethodName();

  private RatisProperties() {}

  static RaftProperties of(ReplicationConfig config) {
    RaftProperties p = new RaftProperties();
    RaftMember self = config.selfMember();
    RaftServerConfigKeys.setStorageDir(p, List.of(config.dataDir().toFile()));
    GrpcConfigKeys.Server.setHost(p, self.host());
    GrpcConfigKeys.Server.setPort(p, self.port());

    // Elections: chosen by ServerConfig (see DEFAULT_ELECTION_TIMEOUT_MIN); Ratis's 150-300 ms lost leaders to
    // GC and JIT pauses on 2 cores.
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, time(config.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, time(config.electionTimeoutMax()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, time(config.electionTimeoutMin()));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, time(config.electionTimeoutMax()));
    // The leader step-down wait stays Ratis's (10 s): set to two election timeouts, a leader just elected
    // after a kill -9 stepped down again within 3 s (W6: terms 4 and 5 in a row), doubling the failover.
    // Writes at a leader cut off from a majority fail at the operation timeout anyway.

    // Durability: an entry counts towards commit only after FileChannel.force (the defaults,
    // stated so that no one flips them): no unsafe flush, no flush completed asynchronously.
    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, false);
    RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
    RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(config.raftLogSegmentBytes()));
    // No metadata entry after each commit. Ratis appends one (holding the commit index) after every commit so
    // that followers learn of it at once: a second entry, appended and fsynced on every member, per write. In a
    // group of one, in-process proposals went from 0.47-0.56 ms to 0.31-0.43 ms p50 without it (Raft does not
    // need the commit index on disk; a group of one commits its new term's first entry at start, which start()
    // waits for). In an ensemble, Corral's log appender tells followers of a commit in an empty AppendEntries
    // instead (CommitTellingLogAppender, through CorralRpcType: Ratis's gRPC transport otherwise); 8 writers
    // on a 3-member ensemble went from 1,107-1,325 to 1,494-2,214 setData/s.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(p, false);
    RaftConfigKeys.Rpc.setType(p, new CorralRpcType());
    // No closed segment is kept in memory beyond what Ratis needs: Ratis drops a closed segment's entries
    // (when the next one closes) once they are applied here and sent to every follower; a follower far behind
    // is sent them from the file. The tree holds what the log does, so each cached entry was the heap paying
    // twice (6 cached segments by default).
    RaftServerConfigKeys.Log.setSegmentCacheNumMax(p, 0);

    // The leader sends new entries to followers at once (Ratis's default waits 10 ms between appends;
    // one writer on a 3-member ensemble went from 59 to 82 writes/s without it, on a loaded machine).
    RaftServerConfigKeys.Log.Appender.setWaitTimeMin(p, TimeDuration.ZERO);
    // A follower appends the entries of an AppendEntries request on the gRPC thread that received them.
    // Ratis 3.3's default ("compose") hands each request to CompletableFuture.thenComposeAsync without an
    // executor, i.e. to the common pool, and where its parallelism is below 2 (2 cores or fewer) the JDK
    // starts a new thread per task: measured on 2 cores, ~640 threads a second and 2.5-4 ms from the
    // leader's flush to a follower's (0.4-0.6 ms without). A follower still answers only after its fsync.
    // That thread is the transport's own: see runsOnTransportThread.
    RaftServerConfigKeys.Log.setAppendEntriesComposeEnabled(p, false);

    // Snapshots every N entries, a few files kept, the log purged up to the snapshot.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotThreshold());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, config.snapshotsRetained());
    // Shutdown snapshots are explicit (Replicator.takeSnapshot) and written before close.
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(p, 1);

    // Every request carries a fresh call id and is never retried through Ratis: keep the cache short.
    RaftServerConfigKeys.RetryCache.setExpiryTime(p, TimeDuration.valueOf(10, TimeUnit.SECONDS));
    // sync() is a ReadIndex read: correct on followers too.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    return p;
  }

  /**
   * Whether a call to the peer port's server is handled on the transport
   * thread that read it rather than the gRPC executor's: Ratis's
   * AppendEntries, which a follower only queues for its log writer (compose
   * is off, above). Handed to the executor, every AppendEntries woke one of
   * its threads (W6: 14,000 switches in 30 s at each follower, under 2,000
   * without). Ratis's other calls (votes, snapshots, reads) may wait on the
   * disk and keep the executor.
   */
  static boolean runsOnTransportThread(MethodDescriptor<?, ?> method) {
    return method.getFullMethodName().equals(APPEND_ENTRIES);
  }

  private static TimeDuration time(Duration d) {
    return TimeDuration.valueOf(d.toMillis(), TimeUnit.MILLISECONDS);
  }
}
