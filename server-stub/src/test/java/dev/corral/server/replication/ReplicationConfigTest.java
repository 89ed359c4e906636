package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicationConfigTest {
  private static final RaftMember S1 = new RaftMember("s1", "127.0.0.1", 7001);
  private static final RaftMember S2 = new RaftMember("s2", "127.0.0.1", 7002);

  @Test
  void defaultsAreTheDocumentedOnes() {
    ReplicationConfig config = ReplicationConfig.builder().dataDir(Path.of("d")).singleMember(S1).build();

    assertEquals(100_000, config.snapshotThreshold());
    assertEquals(2, config.snapshotsRetained());
    assertEquals(Duration.ofSeconds(1), config.electionTimeoutMin());
    assertEquals(Duration.ofSeconds(2), config.electionTimeoutMax());
    assertEquals(4, config.maxEntriesInFlight());
    assertEquals(Duration.ofNanos(500_000), config.batchWait());
    assertEquals(S1, config.selfMember());
    assertEquals(64L << 20, config.localLogSegmentBytes());
    assertEquals(1L << 20, config.raftLogSegmentBytes());
  }

  @Test
  void aSegmentSizeSetIsEveryLogs() {
    ReplicationConfig config = ReplicationConfig.builder().dataDir(Path.of("d")).singleMember(S1)
        .logSegmentBytes(16 << 10).build();

    assertEquals(16 << 10, config.localLogSegmentBytes());
    assertEquals(16 << 10, config.raftLogSegmentBytes());
  }

  @Test
  void aSegmentSizeBelow16KiBFails() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder().dataDir(Path.of("d")).singleMember(S1)
        .logSegmentBytes((16 << 10) - 1);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertEquals("logSegmentBytes must be at least 16 KiB", e.getMessage());
  }

  @Test
  void anEnsembleKeepsOneEntryInFlightAndWaitsForTheTxnsItExpects() {
    ReplicationConfig config = ReplicationConfig.builder().dataDir(Path.of("d")).members("s1", List.of(S1, S2)).build();

    assertEquals(1, config.maxEntriesInFlight());
    assertEquals(Duration.ofMillis(2), config.batchWait());
  }

  @Test
  void aNegativeBatchWaitFails() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder()
        .dataDir(Path.of("d"))
        .singleMember(S1)
        .batchWait(Duration.ofMillis(-1));

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
    assertEquals("batchWait must not be negative", e.getMessage());
  }

  @Test
  void aSettingGivenTwiceFails() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder().snapshotThreshold(10);

    assertThrows(IllegalStateException.class, () -> builder.snapshotThreshold(20));
  }

  @Test
  void selfMustBeAMember() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder().dataDir(Path.of("d")).members("s3", List.of(S1, S2));

    assertThrows(IllegalArgumentException.class, builder::build);
  }

  @Test
  void memberIdsMustBeUnique() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder()
        .dataDir(Path.of("d"))
        .members("s1", List.of(S1, new RaftMember("s1", "127.0.0.1", 7003)));

    assertThrows(IllegalArgumentException.class, builder::build);
  }

  @Test
  void electionTimeoutMinMustBeBelowMax() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder()
        .dataDir(Path.of("d"))
        .singleMember(S1)
        .electionTimeout(Duration.ofSeconds(2), Duration.ofSeconds(1));

    assertThrows(IllegalArgumentException.class, builder::build);
  }

  @Test
  void anEntryCannotHoldMoreTxnsThanZxidsAllow() {
    ReplicationConfig.Builder builder = ReplicationConfig.builder()
        .dataDir(Path.of("d"))
        .singleMember(S1)
        .maxTxnsPerEntry((1 << 16) + 1);

    assertThrows(IllegalArgumentException.class, builder::build);
  }
}
