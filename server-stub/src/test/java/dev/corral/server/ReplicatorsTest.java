package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.server.replication.LocalReplicator;
import dev.corral.server.replication.RaftReplicator;
import dev.corral.server.replication.ReplicationConfig;
import dev.corral.server.replication.Replicator;
import dev.corral.server.session.SessionTracker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicatorsTest {
  @TempDir Path dir;

  @Test
  void aSingleServerOnAFreshDirectoryWritesItsOwnLog() throws Exception {
    ServerConfig config = ServerConfig.builder().dataDir(dir).build();
    ServerCore core = newCore();

    try (Replicator replicator = Replicators.start(config, core)) {
      assertInstanceOf(LocalReplicator.class, replicator);
      assertTrue(Files.isDirectory(dir.resolve("log")));
    }
  }

  @Test
  void aSingleServersLogSegmentIsPreallocatedAtItsOwnDefaultSize() throws Exception {
    ServerConfig config = ServerConfig.builder().dataDir(dir).build();

    try (Replicator replicator = Replicators.start(config, newCore())) {
      assertEquals(List.of(ReplicationConfig.DEFAULT_LOCAL_LOG_SEGMENT_BYTES), segmentSizes());
    }
  }

  @Test
  void aSegmentSizeSetInTheConfigIsEveryLogs() throws Exception {
    ServerConfig config = ServerConfig.builder().dataDir(dir).logSegmentBytes(64 << 10).build();

    ReplicationConfig replication = Replicators.replicationConfig(config);
    assertEquals(64 << 10, replication.localLogSegmentBytes());
    assertEquals(64 << 10, replication.raftLogSegmentBytes());
    try (Replicator replicator = Replicators.start(config, newCore())) {
      assertEquals(List.of(64L << 10), segmentSizes());
    }
  }

  @Test
  void unsetTheRaftLogKeepsItsSmallerDefault() {
    ReplicationConfig replication = Replicators.replicationConfig(ServerConfig.builder().dataDir(dir).build());

    assertEquals(ReplicationConfig.DEFAULT_RAFT_LOG_SEGMENT_BYTES, replication.raftLogSegmentBytes());
  }

  /** The sizes of the single server's log segments (not the spare being prepared). */
  private List<Long> segmentSizes() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("log"))) {
      List<Long> sizes = new ArrayList<>();
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("log_")).toList()) {
        sizes.add(Files.size(file));
      }
      return sizes;
    }
  }

  @Test
  void aSingleServerOnADirectoryHoldingARaftLogKeepsItsData() throws Exception {
    ServerConfig config = ServerConfig.builder().dataDir(dir).build();
    ServerCore before = newCore();
    try (RaftReplicator earlier = RaftReplicator.create(Replicators.replicationConfig(config), before)) {
      earlier.start(); // as a single server did before it had a log of its own
      before.useReplicator(earlier);
      earlier.propose(Txn.newBuilder().setOpenSession(OpenSession.newBuilder()
          .setTimeoutMs(30_000).setPassword(ByteString.copyFromUtf8("secret")))).get(30, TimeUnit.SECONDS);
    }

    ServerCore after = newCore();
    try (Replicator replicator = Replicators.start(config, after)) {
      assertInstanceOf(RaftReplicator.class, replicator);
      assertEquals(1, after.sessionCount(), "the session written through Raft is replayed");
    }
  }

  private static ServerCore newCore() {
    return new ServerCore(Clock.systemUTC(), new SessionTracker(System::nanoTime));
  }
}
