package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.server.tree.TreeRules;
import dev.corral.server.tree.TxnResult;
import dev.corral.server.tree.Zxid;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link Replicator} of a single server must do, run against each
 * (a Raft group of one, and the local log) by the subclasses.
 */
abstract class ReplicatorContractTest<R extends Replicator> {
  static final long WAIT_SECONDS = 30;

  @TempDir
  Path dataDir;

  private final List<RecordingState> states = new ArrayList<>();
  private final List<R> replicators = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void closeEverything() throws Exception {
    states.forEach(RecordingState::releaseApplies);
    replicators.forEach(R::close);
    threads.shutdownNow();
    assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), "test threads did not stop");
    // an executor reports termination from its last thread, which then still has to exit: wait for that
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS)
        .untilAsserted(() -> assertEquals(List.of(), replicatorThreads(), "threads left running"));
  }

  private static List<String> replicatorThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .map(Thread::getName)
        .filter(name -> List.of("corral-group-commit", "corral-proposal-timeouts", "corral-snapshot-writer",
            "corral-log-preparer").contains(name))
        .toList();
  }

  /** A replicator for {@code state}, not yet started. */
  abstract R create(ReplicationConfig config, RecordingState state) throws IOException;

  abstract void start(R replicator) throws Exception;

  /** The log index of the snapshot file with this name, or -1 when it is not a snapshot file. */
  abstract long snapshotIndex(String fileName);

  /** The first log index of the log segment file with this name, or -1 when it is not a segment. */
  abstract long segmentStart(String fileName);

  final R start(ReplicationConfig config, RecordingState state) throws Exception {
    R replicator = create(config, state);
    states.add(state);
    replicators.add(replicator);
    start(replicator);
    return replicator;
  }

  @Test
  void singleMemberLeadsOnceStarted() throws Exception {
    R replicator = start(config().build(), new RecordingState());

    assertTrue(replicator.isLeader());
    replicator.sync().get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void startingTwiceFails() throws Exception {
    R replicator = start(config().build(), new RecordingState());

    assertThrows(IllegalStateException.class, () -> start(replicator));
  }

  @Test
  void aReplicatorNotStartedRefusesProposalsAndClosesQuietly() throws Exception {
    R replicator = create(config().build(), new RecordingState());
    replicators.add(replicator);

    CompletableFuture<TxnResult> refused = replicator.propose(Txn.newBuilder());

    ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(ErrorCode.NOT_READY, ((ReplicationException) e.getCause()).code());
    replicator.close();
    replicator.close();
  }

  @Test
  void anApplyThatThrowsTellsTheStateItFailed() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().build(), state);
    Txns txns = Txns.openSession(replicator);

    state.breakNextApply();
    replicator.propose(txns.create("/breaks"));

    // the failed apply closes the Raft server, and its leader thread may then throw appending to the closed log
    await().dontCatchUncaughtExceptions().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> state.failure() != null);
    assertEquals("apply broke on purpose", state.failure().getMessage());
  }

  @Test
  void aSnapshotRequestWithNothingNewKeepsTheLatestSnapshot() throws Exception {
    R replicator = start(config().build(), new RecordingState());
    Txns txns = Txns.openSession(replicator);
    long once = Zxid.logIndex(replicator.propose(txns.create("/once")).get(WAIT_SECONDS, TimeUnit.SECONDS)
        .response().getZxid());

    // the second request finds no txn applied after the first snapshot and writes nothing
    replicator.takeSnapshot();
    List<Long> first = snapshotIndexes();
    replicator.takeSnapshot();

    assertEquals(1, first.size());
    assertTrue(first.get(0) >= once, "the snapshot at " + first + " holds /once at " + once);
    assertEquals(first, snapshotIndexes());
  }

  @Test
  void aRestartWithNothingAppliedSinceTheSnapshotWritesNoNewOne() throws Exception {
    ReplicationConfig config = config().build();
    R replicator = start(config, new RecordingState());
    Txns txns = Txns.openSession(replicator);
    replicator.propose(txns.create("/kept")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    replicator.takeSnapshot();
    List<Long> before = snapshotIndexes();
    replicator.close();

    // once started, a Raft leader has applied its configuration entry, which changes nothing a snapshot holds
    RecordingState second = new RecordingState();
    R restarted = start(config, second);
    restarted.takeSnapshot();

    assertEquals(1, second.restores());
    assertEquals(List.of(), second.applied(), "no txn applied since the snapshot");
    assertEquals(before, snapshotIndexes());
  }

  @Test
  void txnsProposedFromManyThreadsCompleteWithResultsInPerThreadOrder() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().build(), state);
    Txns txns = Txns.openSession(replicator);
    int writers = 8;
    int perWriter = 200;

    List<Future<List<TxnResult>>> writes = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      String prefix = "/w" + w + "-";
      writes.add(threads.submit(() -> {
        List<CompletableFuture<TxnResult>> futures = new ArrayList<>();
        for (int i = 0; i < perWriter; i++) {
          futures.add(replicator.propose(txns.create(prefix + i)));
        }
        List<TxnResult> results = new ArrayList<>();
        for (CompletableFuture<TxnResult> f : futures) {
          results.add(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        }
        return results;
      }));
    }

    for (int w = 0; w < writers; w++) {
      List<TxnResult> results = writes.get(w).get(WAIT_SECONDS, TimeUnit.SECONDS);
      long previousZxid = 0;
      for (int i = 0; i < perWriter; i++) {
        TxnResult result = results.get(i);
        assertEquals("/w" + w + "-" + i, result.response().getCreate().getPath(), result.response().toString());
        assertTrue(result.response().getZxid() > previousZxid, "zxids follow the order of propose()");
        previousZxid = result.response().getZxid();
      }
    }
    assertEquals(1 + writers * perWriter, state.nodeCount());
  }

  @Test
  void proposalsMadeWhileEntriesAreInFlightShareOneEntry() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().maxEntriesInFlight(4).build(), state);
    Txns txns = Txns.openSession(replicator);
    int before = state.applied().size();
    state.holdApplies();

    List<CompletableFuture<TxnResult>> futures = new ArrayList<>(inFlightWhileHeld(replicator, state, txns, "/n0"));
    for (int i = 1; i < 100; i++) {
      futures.add(replicator.propose(txns.create("/n" + i)));
    }
    state.releaseApplies();
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);

    // at most 4 entries were in flight while applies were held; everything queued behind them goes in one
    List<RecordingState.Applied> entries = state.applied().subList(before, state.applied().size());
    assertTrue(entries.size() <= 5, "100 txns in " + entries.size() + " entries");
    assertEquals(100, entries.stream().mapToInt(a -> a.entry().getTxnsCount()).sum());
  }

  /**
   * Proposes a txn from another thread (a replicator may write and apply on the
   * proposing thread) and returns once its apply is held, with its future.
   */
  private List<CompletableFuture<TxnResult>> inFlightWhileHeld(R replicator, RecordingState state, Txns txns,
      String path) throws Exception {
    CompletableFuture<TxnResult> result = new CompletableFuture<>();
    threads.submit(() -> replicator.propose(txns.create(path)).whenComplete((r, e) -> {
      if (e != null) {
        result.completeExceptionally(e);
      } else {
        result.complete(r);
      }
    }));
    state.awaitHeldApply(WAIT_SECONDS);
    return List.of(result);
  }

  @Test
  void entryTimestampsNeverGoBackwards() throws Exception {
    RecordingState state = new RecordingState();
    BackwardsClock clock = new BackwardsClock(5_000_000, 1_000);
    R replicator = start(config().clock(clock).build(), state);
    Txns txns = Txns.openSession(replicator);

    for (int i = 0; i < 20; i++) {
      replicator.propose(txns.create("/t" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    long previous = Long.MIN_VALUE;
    for (RecordingState.Applied a : state.applied()) {
      assertTrue(a.entry().getTimeMs() >= previous, "entry " + a.index() + " went back in time");
      previous = a.entry().getTimeMs();
    }
    assertEquals(5_000_000, previous, "the clock's first reading stays the high-water mark");
  }

  @Test
  void everyEntryCarriesTheTreeRulesItWasFormedUnder() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().build(), state);
    Txns txns = Txns.openSession(replicator);
    replicator.propose(txns.create("/r")).get(WAIT_SECONDS, TimeUnit.SECONDS);

    assertFalse(state.applied().isEmpty());
    for (RecordingState.Applied a : state.applied()) {
      assertEquals(TreeRules.CURRENT.version(), a.entry().getRules(), "entry " + a.index());
    }
  }

  @Test
  void restartFromTheSameDirectoryReplaysEveryAppliedEntryAtTheSameIndex() throws Exception {
    ReplicationConfig config = config().build();
    RecordingState first = new RecordingState();
    R replicator = start(config, first);
    Txns txns = Txns.openSession(replicator);
    for (int i = 0; i < 30; i++) {
      replicator.propose(txns.create("/r" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    replicator.close();

    RecordingState second = new RecordingState();
    R restarted = start(config, second);

    assertEquals(first.applied(), second.applied());
    assertEquals(0, second.restores());
    assertEquals(first.digest(), second.digest());
    TxnResult next = restarted.propose(txns.create("/after-restart")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertTrue(next.response().getZxid() > first.lastZxid());
  }

  @Test
  void restartLoadsTheSnapshotAndReplaysOnlyLaterEntries() throws Exception {
    ReplicationConfig config = config().build();
    RecordingState first = new RecordingState();
    R replicator = start(config, first);
    Txns txns = Txns.openSession(replicator);
    for (int i = 0; i < 20; i++) {
      replicator.propose(txns.create("/before" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    replicator.takeSnapshot();
    long snapshotIndex = snapshotIndexes().stream().mapToLong(Long::longValue).max().orElseThrow();
    for (int i = 0; i < 10; i++) {
      replicator.propose(txns.create("/after" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    replicator.close();

    RecordingState second = new RecordingState();
    start(config, second);

    List<RecordingState.Applied> all = first.applied();
    assertTrue(snapshotIndex >= all.get(20).index(), "the snapshot holds every entry applied before it");
    assertEquals(all.subList(21, 31), second.applied());
    assertEquals(1, second.restores());
    assertEquals(first.digest(), second.digest());
  }

  @Test
  void aSnapshotThatFailsItsChecksumStopsTheStart() throws Exception {
    ReplicationConfig config = config().build();
    R replicator = start(config, new RecordingState());
    Txns txns = Txns.openSession(replicator);
    replicator.propose(txns.create("/x")).get(WAIT_SECONDS, TimeUnit.SECONDS);
    replicator.takeSnapshot();
    replicator.close();
    Path snapshot;
    try (Stream<Path> files = Files.walk(dataDir)) {
      snapshot = files.filter(p -> snapshotIndex(p.getFileName().toString()) >= 0).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(snapshot);
    bytes[bytes.length / 2] ^= 1;
    Files.write(snapshot, bytes);

    RecordingState second = new RecordingState();
    assertThrows(IOException.class, () -> start(config, second));
    assertEquals(0, second.restores());
  }

  @Test
  void snapshotPurgesTheLogBeforeItAndKeepsTheConfiguredNumberOfFiles() throws Exception {
    ReplicationConfig config = config().logSegmentBytes(16 << 10).snapshotsRetained(2).build();
    R replicator = start(config, new RecordingState());
    Txns txns = Txns.openSession(replicator);
    ByteString kilobyte = ByteString.copyFrom(new byte[1024]);

    long firstStart = Long.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 40; i++) {
        replicator.propose(txns.create("/p" + round + "-" + i, kilobyte)).get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      if (round == 0) {
        firstStart = logSegmentStarts().stream().mapToLong(Long::longValue).min().orElseThrow();
        assertTrue(logSegmentStarts().size() > 1, "40 KiB fill more than one 16 KiB segment");
      }
      replicator.takeSnapshot();
    }

    long snapshotIndex = snapshotIndexes().stream().mapToLong(Long::longValue).max().orElseThrow();
    long purged = firstStart;
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).untilAsserted(() -> {
      assertEquals(2, snapshotIndexes().size(), "snapshot files " + snapshotIndexes());
      assertFalse(logSegmentStarts().contains(purged), "the first segment is purged");
    });
    assertTrue(logSegmentStarts().stream().allMatch(start -> start > purged && start <= snapshotIndex + 1),
        "segments left " + logSegmentStarts());
  }

  @Test
  void aSnapshotIsWrittenInTheBackgroundOnceTheThresholdIsPassedAndLoadedOnRestart() throws Exception {
    ReplicationConfig config = config().snapshotThreshold(10).build();
    RecordingState first = new RecordingState();
    R replicator = start(config, first);
    Txns txns = Txns.openSession(replicator);
    for (int i = 0; i < 30; i++) {
      replicator.propose(txns.create("/auto" + i)).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> !snapshotIndexes().isEmpty());
    replicator.close();
    long snapshotIndex = snapshotIndexes().stream().mapToLong(Long::longValue).max().orElseThrow();

    RecordingState second = new RecordingState();
    start(config, second);

    assertEquals(1, second.restores());
    assertEquals(first.applied().stream().filter(a -> a.index() > snapshotIndex).toList(), second.applied());
    assertEquals(first.digest(), second.digest());
  }

  @Test
  void closeFailsWithNotReadyEveryProposalThatWasNotApplied() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().build(), state);
    Txns txns = Txns.openSession(replicator);
    state.holdApplies();
    List<CompletableFuture<TxnResult>> futures = new ArrayList<>(inFlightWhileHeld(replicator, state, txns, "/c0"));
    for (int i = 1; i < 5; i++) {
      futures.add(replicator.propose(txns.create("/c" + i)));
    }

    Future<?> closing = threads.submit(replicator::close);
    await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> refusedNotReady(replicator.propose(txns.create("/late"))));
    state.releaseApplies();
    closing.get(WAIT_SECONDS, TimeUnit.SECONDS);

    int failed = 0;
    for (CompletableFuture<TxnResult> f : futures) {
      try {
        assertFalse(f.get(WAIT_SECONDS, TimeUnit.SECONDS).response().hasError());
      } catch (ExecutionException e) {
        assertEquals(ErrorCode.NOT_READY, assertInstanceOf(ReplicationException.class, e.getCause()).code());
        failed++;
      }
    }
    assertTrue(failed >= 4, "the proposals queued behind the held entry never go in, yet " + (5 - failed)
        + " of 5 were applied");
  }

  private static boolean refusedNotReady(CompletableFuture<TxnResult> proposal) throws InterruptedException {
    try {
      proposal.get(WAIT_SECONDS, TimeUnit.SECONDS);
      return false;
    } catch (ExecutionException e) {
      return e.getCause() instanceof ReplicationException r && r.code() == ErrorCode.NOT_READY;
    } catch (TimeoutException e) {
      return false;
    }
  }

  @Test
  void zxidsComeFromTheLogIndex() throws Exception {
    RecordingState state = new RecordingState();
    R replicator = start(config().build(), state);
    Txns txns = Txns.openSession(replicator);

    TxnResult result = replicator.propose(txns.create("/z")).get(WAIT_SECONDS, TimeUnit.SECONDS);

    RecordingState.Applied entry = state.applied().get(1); // after the session's
    assertEquals(Zxid.of(entry.index(), 0), result.response().getZxid());
  }

  /** A group of one on a free loopback port, with short elections. */
  ReplicationConfig.Builder config() {
    return ReplicationConfig.builder()
        .dataDir(dataDir)
        .singleMember(new RaftMember("s1", "127.0.0.1", 0))
        .electionTimeout(Duration.ofMillis(200), Duration.ofMillis(400));
  }

  private List<Long> snapshotIndexes() throws IOException {
    return fileNames().stream().map(this::snapshotIndex).filter(index -> index >= 0).toList();
  }

  /** Start indexes of the log segment files. */
  private List<Long> logSegmentStarts() throws IOException {
    return fileNames().stream().map(this::segmentStart).filter(index -> index >= 0).toList();
  }

  /**
   * Names of the files under the data directory. Ratis deletes old snapshots after replying to
   * a snapshot request, and purges log segments, while we look: a file gone meanwhile is left out.
   */
  private List<String> fileNames() throws IOException {
    List<String> names = new ArrayList<>();
    Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
        names.add(file.getFileName().toString());
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE;
        }
        throw e;
      }
    });
    return names;
  }
}
