package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.server.tree.TxnResult;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The replicator contract on a single server's own log, and what only that log does. */
class LocalReplicatorTest extends ReplicatorContractTest<LocalReplicator> {
  @Override
  LocalReplicator create(ReplicationConfig config, RecordingState state) throws IOException {
    return LocalReplicator.create(config, state);
  }

  @Override
  void start(LocalReplicator replicator) throws Exception {
    replicator.start();
  }

  @Override
  long snapshotIndex(String fileName) {
    return fileName.matches("snapshot\\.\\d+") ? Long.parseLong(fileName.substring("snapshot.".length())) : -1;
  }

  @Override
  long segmentStart(String fileName) {
    return fileName.matches("log_\\d+") ? Long.parseLong(fileName.substring("log_".length())) : -1;
  }

  @Test
  void aTxnProposedToAnIdleLogIsWrittenAndAppliedOnTheProposingThread() throws Exception {
    LocalReplicator replicator = start(config().build(), new RecordingState());
    Txns txns = Txns.openSession(replicator);
    AtomicReference<Thread> appliedOn = new AtomicReference<>();
    Thread proposer = new Thread(() -> replicator.propose(txns.create("/here"))
        .thenRun(() -> appliedOn.set(Thread.currentThread())), "test-proposer");

    proposer.start();
    proposer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

    assertEquals(proposer, appliedOn.get(), "answered before propose() returned, on its thread");
  }

  @Test
  void aWriteTornByACrashIsDroppedAndTheLogGoesOnAfterTheLastWholeEntry() throws Exception {
    ReplicationConfig config = config().build();
    RecordingState first = new RecordingState();
    LocalReplicator replicator = start(config, first);
    Txns txns = Txns.openSession(replicator);
    for (int i = 0; i < 10; i++) {
      replicator.propose(txns.create("/kept" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    replicator.close();
    long end = writtenBytes(onlySegment());
    try (FileChannel segment = FileChannel.open(onlySegment(), StandardOpenOption.WRITE)) {
      // the first bytes of a record whose write the crash cut short: a length, then too little of the rest
      segment.write(ByteBuffer.allocate(12).putInt(0, 500).putInt(4, 77).putInt(8, 1234), end);
    }

    RecordingState second = new RecordingState();
    LocalReplicator restarted = start(config, second);
    TxnResult next = restarted.propose(txns.create("/after-crash")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    restarted.close();
    RecordingState third = new RecordingState();
    start(config, third);

    assertEquals(first.applied(), second.applied().subList(0, first.applied().size()));
    assertEquals(first.applied().size() + 1, third.applied().size(), "every whole entry, then the new one");
    assertEquals(next.response().getZxid(), third.lastZxid());
  }

  @Test
  void aDataDirectoryHoldingARaftGroupIsRecognised() throws Exception {
    assertFalse(RaftReplicator.storageIn(dataDir), "an empty directory");
    RaftReplicator raft = RaftReplicator.create(config().build(), new RecordingState());
    raft.start();
    raft.close();
    assertTrue(RaftReplicator.storageIn(dataDir), "a directory Ratis wrote");

    Path fresh = dataDir.resolve("fresh");
    start(ReplicationConfig.builder().dataDir(fresh).singleMember(new RaftMember("s1", "127.0.0.1", 0)).build(),
        new RecordingState()).close();
    assertFalse(RaftReplicator.storageIn(fresh), "a directory the local log wrote");
  }

  private Path onlySegment() throws IOException {
    try (Stream<Path> files = Files.list(dataDir.resolve(LocalReplicator.LOG_DIR))) {
      return files.filter(file -> !file.getFileName().toString().equals(LocalLog.SPARE)).reduce((a, b) -> {
        throw new AssertionError("more than one segment: " + a + ", " + b);
      }).orElseThrow();
    }
  }

  /** Where the zeros of the preallocated segment begin: after the last record. */
  private static long writtenBytes(Path segment) throws IOException {
    byte[] bytes = Files.readAllBytes(segment);
    long offset = 0;
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.getInt((int) offset) != 0) {
      offset += 16 + buffer.getInt((int) offset);
    }
    return offset;
  }
}
