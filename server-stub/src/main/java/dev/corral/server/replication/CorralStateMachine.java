package dev.corral.server.replication;

import static dev.corral.server.replication.DaemonThreads.daemon;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.corral.proto.internal.LogEntry;
import dev.corral.server.tree.TreeSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import java.time.Clock;
import java.util.function.Consumer;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine over a {@link ReplicatedState}: applies committed
 * {@link LogEntry}s in log order (the state completes local proposals txn by
 * txn, through the proposer), moves the last applied index together with the
 * state (on the apply thread, right after the state's apply), and writes
 * and loads snapshots in {@link SnapshotStorage}'s files.
 *
 * <p>Snapshots Ratis asks for when the log passes its threshold are captured on
 * the apply thread and written on a background thread; {@link #takeSnapshot()}
 * only ever reports the index of a snapshot whose file is durable. A snapshot
 * requested with {@link #writeNextSnapshotNow} is written on the apply thread.
 *
 * <p>A new snapshot is written only when the state applied an entry after the
 * latest one: Ratis also applies entries of its own (the leader's configuration
 * entry on each election; in logs an ensemble wrote before followers were told
 * of commits by {@link CommitTellingLogAppender}, a metadata entry after each
 * commit), which move the last applied index but not the state, and a
 * snapshot of an unchanged state would only be a copy of the latest one.
 */
final class CorralStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(CorralStateMachine.class);
  private static final long RETRY_FAILED_SNAPSHOT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final ReplicatedState state;
  private final GroupCommitProposer proposer;
  private final Consumer<RaftPeerId> leaderListener;
  private final EntryClock entryClock;
  private final SnapshotStorage storage = new SnapshotStorage();
  private final ExecutorService snapshotWriter = Executors.newSingleThreadExecutor(daemon("corral-snapshot-writer"));
  private final AtomicBoolean writeNextSnapshotNow = new AtomicBoolean();
  private final CompletableFuture<Void> leaderReady = new CompletableFuture<>();

  // apply thread only (takeSnapshot runs there)
  private CompletableFuture<Void> backgroundWrite = CompletableFuture.completedFuture(null);
  private long reported = -1;
  private volatile Exception lastSnapshotFailure;
  /** The index of the last entry the state applied, or of the snapshot it was loaded from; -1 for none. */
  private volatile long lastStateIndex = -1;
  private volatile long noBackgroundWriteBefore = System.nanoTime();

  /** {@code leaderListener} hears of every new leader this member learns of (null: none known). */
  CorralStateMachine(ReplicatedState state, GroupCommitProposer proposer, Consumer<RaftPeerId> leaderListener,
      Clock clock) {
    this.state = state;
    this.proposer = proposer;
    this.leaderListener = leaderListener;
    this.entryClock = new EntryClock(clock);
  }

  /**
   * On the leader, as it takes an entry (its own or a follower's): writes the
   * leader's time and tree rules into it, so that every member applies the
   * same time by the same rules. The fields are appended to the proposer's
   * bytes, not merged by parsing and re-serializing the whole entry: a
   * protobuf parser keeps the last value of a field that appears twice (and
   * proposers leave them unset).
   */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) {
    byte[] stamp = entryClock.stampFields().toByteArray();
    return TransactionContext.newBuilder()
        .setStateMachine(this)
        .setClientRequest(request)
        .setLogData(request.getMessage().getContent().concat(UnsafeByteOperations.unsafeWrap(stamp)))
        .build();
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    getLifeCycle().startAndTransition(() -> {
      super.initialize(server, groupId, raftStorage);
      storage.init(raftStorage);
      load(storage.getLatestSnapshot());
    });
  }

  /** Before the leader installs a snapshot here: stop serving until {@link #reinitialize()}. */
  @Override
  public synchronized void pause() {
    if (getLifeCycle().compareAndTransition(LifeCycle.State.RUNNING, LifeCycle.State.PAUSING)) {
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** After a snapshot install: load the installed snapshot, then run again. */
  @Override
  public synchronized void reinitialize() throws IOException {
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().startAndTransition(() -> load(storage.reload()));
    }
  }

  @Override
  public SnapshotStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto logEntry = trx.getLogEntry();
    try {
      LogEntry entry = parse(logEntry);
      entryClock.applied(entry.getTimeMs());
      state.apply(logEntry.getIndex(), entry, proposer); // completes our proposers' futures, txn by txn
      lastStateIndex = logEntry.getIndex();
    } catch (RuntimeException | Error e) {
      LOG.error("Applying log entry {} failed; this server stops serving", logEntry.getIndex(), e);
      state.failed(e);
      throw e;
    }
    updateLastAppliedTermIndex(logEntry.getTerm(), logEntry.getIndex());
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  /** The only query is the empty message: a ReadIndex sync, answered once everything committed before it is applied here. */
  @Override
  public CompletableFuture<Message> query(Message request) {
    if (!request.getContent().isEmpty()) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("unknown query of "
          + request.getContent().size() + " bytes"));
    }
    return CompletableFuture.completedFuture(Message.EMPTY);
  }

  @Override
  public void notifyLeaderReady() {
    leaderReady.complete(null);
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    leaderListener.accept(newLeaderId);
  }

  /** Completes once this member first became a leader that has committed an entry of its term. */
  CompletableFuture<Void> leaderReady() {
    return leaderReady;
  }

  /**
   * The index of the last log entry applied to the state (or of the snapshot it
   * was loaded from), -1 if none: a snapshot at this index or later holds every
   * txn applied so far. Ratis's own entries after it do not count.
   */
  long lastStateIndex() {
    return lastStateIndex;
  }

  /** Whether the next {@link #takeSnapshot()} writes on the apply thread and reports the new index. */
  void writeNextSnapshotNow(boolean now) {
    writeNextSnapshotNow.set(now);
  }

  /**
   * Called by Ratis on the apply thread once the threshold is passed, and on
   * request. Reports only snapshots whose file is durable: a requested one is
   * written here and now; otherwise a view is captured here and written in the
   * background, and a later call reports it (before any new write starts).
   * Neither is written when the state applied nothing after the latest snapshot.
   */
  @Override
  public long takeSnapshot() {
    if (writeNextSnapshotNow.getAndSet(false)) {
      return report(writeNow());
    }
    long durable = storage.latestIndex();
    boolean writing = !backgroundWrite.isDone();
    boolean backingOff = System.nanoTime() - noBackgroundWriteBefore < 0;
    if (writing || durable > reported || backingOff) {
      return report(durable);
    }
    TermIndex last = getLastAppliedTermIndex();
    if (last != null && lastStateIndex > durable) {
      TreeSnapshot view = state.snapshot();
      backgroundWrite = CompletableFuture.runAsync(() -> writeInBackground(last, view), snapshotWriter);
    }
    return report(durable);
  }

  /** Why the last requested snapshot was not written, or null. */
  Exception lastSnapshotFailure() {
    return lastSnapshotFailure;
  }

  private long writeNow() {
    backgroundWrite.exceptionally(e -> null).join();
    TermIndex last = getLastAppliedTermIndex();
    if (last != null && lastStateIndex > storage.latestIndex()) {
      try {
        write(last, state.snapshot());
        lastSnapshotFailure = null;
      } catch (IOException | RuntimeException e) {
        lastSnapshotFailure = e;
      }
    }
    return storage.latestIndex();
  }

  private long report(long index) {
    reported = index;
    return index;
  }

  @Override
  public void close() throws IOException {
    getLifeCycle().checkStateAndClose(() -> {
      snapshotWriter.shutdown();
      if (!DaemonThreads.awaitTermination(snapshotWriter, Duration.ofMinutes(1))) {
        LOG.error("snapshot writer still running after 1 minute (or the wait was interrupted);"
            + " its snapshot will not be used");
        snapshotWriter.shutdownNow();
      }
      leaderReady.completeExceptionally(new IOException("state machine closed"));
    });
  }

  private void load(SingleFileSnapshotInfo snapshot) throws IOException {
    if (snapshot == null) {
      LOG.info("no snapshot; replaying the log from its start");
      return;
    }
    state.restore(SnapshotStorage.read(snapshot));
    setLastAppliedTermIndex(snapshot.getTermIndex());
    lastStateIndex = snapshot.getIndex();
    LOG.info("loaded snapshot {}", snapshot.getFile().getPath());
  }

  private void write(TermIndex at, TreeSnapshot view) throws IOException {
    try {
      storage.write(at, view);
      LOG.info("wrote snapshot at {}", at);
    } catch (IOException | RuntimeException e) {
      LOG.error("failed to write snapshot at {}; it is not recorded", at, e);
      throw e;
    }
  }

  private void writeInBackground(TermIndex at, TreeSnapshot view) {
    try {
      write(at, view);
    } catch (IOException | RuntimeException e) {
      noBackgroundWriteBefore = System.nanoTime() + RETRY_FAILED_SNAPSHOT_NANOS;
    }
  }

  private static LogEntry parse(LogEntryProto logEntry) {
    try {
      return LogEntry.parseFrom(logEntry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
    } catch (InvalidProtocolBufferException e) {
      // a corrupt committed entry: stop here rather than diverge (Ratis closes the server)
      throw new IllegalStateException("log entry " + logEntry.getIndex() + " is not a LogEntry", e);
    }
  }
}
