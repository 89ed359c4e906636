package dev.corral.server.replication;

import static dev.corral.server.replication.DaemonThreads.daemon;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.TreeSnapshot;
import dev.corral.server.tree.TxnResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Replicator} of a single server: the group-committed entries go
 * into a {@link LocalLog} on this machine, not through Raft. The thread that
 * submits an entry (the group-commit proposer's sender: one at a time) appends
 * it, makes it durable with an fdatasync, applies it and answers its
 * proposers before the submission returns. A write is acknowledged only after
 * that fsync, as in an ensemble; txns that arrive meanwhile queue in the
 * proposer and share the next entry, which waits up to the batch wait for the
 * writers expected back ({@link ReplicationConfig#batchWait()}).
 *
 * <p>Why not a Raft group of one: Ratis moves each entry across four threads
 * (the submitter, its log worker, the leader's commit event processor, the
 * state machine updater), and on 2 cores each hand-off to a parked thread cost
 * more than the fsync itself: one client's writes took 0.30 ms p50 where the
 * fsync of a preallocated file takes 0.09 ms, and ZooKeeper's took 0.24 ms.
 * Nor a writer thread of its own: a write then crossed from the request's
 * thread (a transport event loop) to the writer and back, two wake-ups of
 * parked threads. Written on the event loop, the answer goes out without
 * waking another thread: one client's setData took 285 us of server CPU
 * against 375 us (1,159 against 1,038 a second), and 8 clients' did 6,321
 * against 5,594 a second (two servers, rounds alternating between them). The
 * price: while it fsyncs, that event loop reads no other request, for at most
 * one fsync (writes read meanwhile would wait for the next entry anyway).
 *
 * <p>Snapshots: after every {@code snapshotThreshold} entries the tree is
 * captured on the writing thread and written on another; once durable, the log
 * segments it covers are deleted. {@link #takeSnapshot()} writes one at once.
 * On start the latest snapshot is loaded and the log after it replayed.
 */
public final class LocalReplicator implements Replicator {
  private static final Logger LOG = LoggerFactory.getLogger(LocalReplicator.class);
  /** Where the log's segments go, inside the data directory. */
  static final String LOG_DIR = "log";
  /** Where the snapshots go, inside the data directory. */
  static final String SNAPSHOT_DIR = "snapshots";
  private static final long RETRY_FAILED_SNAPSHOT_NANOS = TimeUnit.SECONDS.toNanos(30);
  private static final long TERM = 1;
  private static final Duration WRITE_UNDER_WAY_PATIENCE = Duration.ofSeconds(30);

  private enum Lifecycle { NEW, STARTING, RUNNING, CLOSED }

  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
  private final ReplicationConfig config;
  private final ReplicatedState state;
  private final GroupCommitProposer proposer;
  private final EntryClock entryClock;
  private final LocalSnapshots snapshots;
  private final ExecutorService snapshotWriter = Executors.newSingleThreadExecutor(daemon("corral-snapshot-writer"));
  /** Held while a submission writes: one at a time. */
  private final ReentrantLock writeLock = new ReentrantLock();
  /** Held while entries are applied, and to capture a snapshot consistent with {@link #lastApplied}. */
  private final Object applyLock = new Object();
  /** Serializes snapshot writes, so that {@link #snapshotIndex} only grows. */
  private final Object snapshotLock = new Object();
  private LocalLog log;
  /** Why the log stopped taking entries (it failed to write, or an apply threw); null while healthy. */
  private volatile ReplicationException broken;
  private long lastApplied; // guarded by applyLock
  private volatile long snapshotIndex; // written under snapshotLock

  // guarded by writeLock
  private CompletableFuture<Void> backgroundSnapshot = CompletableFuture.completedFuture(null);
  private volatile long noBackgroundSnapshotBefore = System.nanoTime();

  private LocalReplicator(ReplicationConfig config, ReplicatedState state) throws IOException {
    this.config = config;
    this.state = state;
    this.entryClock = new EntryClock(config.clock());
    this.snapshots = new LocalSnapshots(config.dataDir().resolve(SNAPSHOT_DIR), config.snapshotsRetained());
    this.proposer = new GroupCommitProposer(config, this::writeNow);
  }

  /** A replicator for {@code state} over the log in the config's data directory, not yet started. */
  public static LocalReplicator create(ReplicationConfig config, ReplicatedState state) throws IOException {
    return new LocalReplicator(config, state);
  }

  /** Loads the latest snapshot, replays the log after it, and starts taking proposals. */
  public void start() throws IOException {
    if (!lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.STARTING)) {
      throw new IllegalStateException("start() called on a replicator that is " + lifecycle.get());
    }
    try {
      Optional<LocalSnapshots.Found> snapshot = snapshots.latest();
      long floor = 0;
      if (snapshot.isPresent()) {
        state.restore(LocalSnapshots.read(snapshot.get()));
        floor = snapshot.get().index();
        LOG.info("loaded snapshot {}", snapshot.get().file());
      }
      snapshotIndex = floor;
      log = LocalLog.open(config.dataDir().resolve(LOG_DIR), config.localLogSegmentBytes(), floor);
      synchronized (applyLock) {
        lastApplied = floor;
        log.replay(floor, (index, payload) -> {
          LogEntry entry = parse(index, payload);
          entryClock.applied(entry.getTimeMs());
          state.apply(index, entry, (txn, result) -> { });
          lastApplied = index;
        });
      }
      proposer.start();
      state.leaderChanged(true);
      if (!lifecycle.compareAndSet(Lifecycle.STARTING, Lifecycle.RUNNING)) {
        throw new IOException("closed while starting");
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  @Override
  public CompletableFuture<TxnResult> propose(Txn.Builder txn) {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      return CompletableFuture.failedFuture(notRunning());
    }
    return proposer.propose(txn);
  }

  /** Everything committed is applied before it is acknowledged: nothing to wait for. */
  @Override
  public CompletableFuture<Void> sync() {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      return CompletableFuture.failedFuture(notRunning());
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public boolean isLeader() {
    return lifecycle.get() == Lifecycle.RUNNING;
  }

  /** A single server's sessions are heard from here, by the leader itself. */
  @Override
  public CompletableFuture<Void> forwardHeartbeats(Collection<Long> sessionIds) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public GroupView view() {
    String self = config.self();
    return isLeader()
        ? new GroupView(self, GroupView.Role.LEADER, TERM, self, List.of(self))
        : new GroupView(self, GroupView.Role.UNKNOWN, 0, "", List.of(self));
  }

  /**
   * Writes a snapshot of every entry applied so far, durably, and deletes the
   * log before it; keeps the latest one when nothing was applied since.
   *
   * @throws UncheckedIOException when the snapshot could not be written
   */
  @Override
  public void takeSnapshot() {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      throw new IllegalStateException("takeSnapshot() on a replicator that is " + lifecycle.get());
    }
    long at;
    TreeSnapshot view;
    synchronized (applyLock) {
      at = lastApplied;
      if (at <= snapshotIndex) {
        return;
      }
      view = state.snapshot();
    }
    try {
      writeSnapshot(at, view);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (lifecycle.getAndSet(Lifecycle.CLOSED) == Lifecycle.CLOSED) {
      return;
    }
    awaitWriteUnderWay(); // the log must not close under it, nor the proposer interrupt it (see below)
    proposer.close(); // it interrupts its drainer, and an interrupt during a write closes the log's file
    snapshotWriter.shutdown();
    if (!DaemonThreads.awaitTermination(snapshotWriter, Duration.ofMinutes(1))) {
      LOG.error("snapshot writer still running after 1 minute; its snapshot will not be used");
    }
    if (log != null) {
      try {
        log.close();
      } catch (IOException e) {
        LOG.warn("closing the log failed", e);
      }
    }
  }

  /** Waits for a write that began before the close to end; none begins after it. */
  private void awaitWriteUnderWay() {
    try {
      if (writeLock.tryLock(WRITE_UNDER_WAY_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
        writeLock.unlock();
      } else {
        LOG.error("a write of the log still under way after {}; closing anyway", WRITE_UNDER_WAY_PATIENCE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The proposer's submitter: appends the entry (stamped with the time),
   * fsyncs, and applies it, completing its proposals' futures txn by txn,
   * before returning. Its answer is then done: there is nothing left to
   * abandon. If the log fails, this server stops serving.
   */
  private GroupCommitProposer.Submission writeNow(LogEntry entry) {
    CompletableFuture<Void> answer = new CompletableFuture<>();
    writeLock.lock();
    try {
      ReplicationException refusal = broken != null ? broken
          : lifecycle.get() != Lifecycle.RUNNING ? notRunning() : null;
      if (refusal != null) {
        answer.completeExceptionally(refusal);
      } else {
        writeAndApply(entry);
        answer.complete(null);
        snapshotIfDue();
      }
    } catch (IOException | RuntimeException | Error e) {
      LOG.error("The log could not be written or applied; this server stops serving", e);
      broken = GroupCommitProposer.notReady("the server's log failed: " + e, e);
      answer.completeExceptionally(e);
      state.failed(e);
    } finally {
      writeLock.unlock();
    }
    return new GroupCommitProposer.Submission(answer, () -> { });
  }

  /** Appends the entry (stamped with the time and rules), fsyncs, then applies it. The caller holds the write lock. */
  private void writeAndApply(LogEntry proposed) throws IOException {
    LogEntry entry = proposed.toBuilder().mergeFrom(entryClock.stampFields()).build();
    long index = log.lastIndex() + 1;
    log.append(index, entry.toByteArray());
    log.flush();
    synchronized (applyLock) {
      state.apply(index, entry, proposer); // completes the proposals' futures, txn by txn
      lastApplied = index;
    }
  }

  /** Past the threshold: captures the tree here and writes it on the snapshot thread. */
  private void snapshotIfDue() {
    long at;
    synchronized (applyLock) {
      at = lastApplied;
    }
    if (at - snapshotIndex < config.snapshotThreshold() || !backgroundSnapshot.isDone()
        || System.nanoTime() - noBackgroundSnapshotBefore < 0) {
      return;
    }
    TreeSnapshot view = state.snapshot();
    backgroundSnapshot = CompletableFuture.runAsync(() -> {
      try {
        writeSnapshot(at, view);
      } catch (IOException e) {
        noBackgroundSnapshotBefore = System.nanoTime() + RETRY_FAILED_SNAPSHOT_NANOS;
      }
    }, snapshotWriter);
  }

  private void writeSnapshot(long at, TreeSnapshot view) throws IOException {
    synchronized (snapshotLock) {
      if (at <= snapshotIndex) {
        return;
      }
      try {
        snapshots.write(at, view);
      } catch (IOException | RuntimeException e) {
        LOG.error("failed to write the snapshot at log index {}; it is not recorded", at, e);
        throw e;
      }
      snapshotIndex = at;
      log.purgeUpTo(at);
      LOG.info("wrote snapshot at log index {}", at);
    }
  }

  private ReplicationException notRunning() {
    return GroupCommitProposer.notReady("the replicator is " + lifecycle.get(), null);
  }

  private static LogEntry parse(long index, byte[] payload) throws IOException {
    try {
      return LogEntry.parseFrom(payload);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException("log record " + index + " is not a LogEntry", e);
    }
  }
}
