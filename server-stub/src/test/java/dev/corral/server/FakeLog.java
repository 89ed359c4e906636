package dev.corral.server;

import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.server.replication.ReplicationException;
import dev.corral.server.replication.Replicator;
import dev.corral.server.tree.TxnResult;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;

/**
 * A log of one, without Raft: each proposal is applied to the core at once, on
 * the proposing thread, one txn per entry (completing its future on the apply
 * path, as the real log does). Syncs complete at once unless held, so tests
 * can decide when a sync finishes relative to other changes; client writes
 * can be held too, as in a member that stalls with them in its pipeline.
 */
final class FakeLog implements Replicator {
  private final ServerCore core;
  private final Queue<CompletableFuture<Void>> heldSyncs = new ArrayDeque<>();
  private final Queue<HeldWrite> heldWrites = new ArrayDeque<>();
  private boolean holdWrites;
  private boolean holdReattaches;
  private long index;
  private long timeMs = 1_000_000;
  private boolean holdSyncs;

  FakeLog(ServerCore core) {
    this.core = core;
  }

  @Override
  public synchronized CompletableFuture<TxnResult> propose(Txn.Builder txn) {
    CompletableFuture<TxnResult> applied = new CompletableFuture<>();
    Runnable apply = () -> {
      LogEntry entry = LogEntry.newBuilder().setTimeMs(++timeMs).addTxns(txn).build();
      core.apply(++index, entry, (t, result) -> applied.complete(result));
    };
    if ((holdWrites && txn.hasRequest()) || (holdReattaches && txn.hasAttachSession())) {
      heldWrites.add(new HeldWrite(apply, applied));
    } else {
      apply.run();
    }
    return applied;
  }

  private record HeldWrite(Runnable apply, CompletableFuture<TxnResult> proposer) {}

  /** From now on client writes (requests) wait for {@link #releaseWrites}; session changes do not. */
  synchronized void holdWrites() {
    holdWrites = true;
  }

  /** From now on client writes and re-attaches wait for {@link #releaseWrites}: a member that stalls. */
  synchronized void holdWritesAndReattaches() {
    holdWrites = true;
    holdReattaches = true;
  }

  /** The number of client writes (and re-attaches) waiting. */
  synchronized int heldWrites() {
    return heldWrites.size();
  }

  /** Applies every held write now, after whatever was applied meanwhile. */
  synchronized void releaseWrites() {
    holdWrites = false;
    holdReattaches = false;
    while (!heldWrites.isEmpty()) {
      heldWrites.poll().apply().run();
    }
  }

  /**
   * Tells the proposers of the held writes that their outcome is unknown
   * (OPERATION_TIMEOUT) while the writes stay held, as a forwarded entry that
   * Raft may still commit: {@link #releaseWrites} applies them later. New
   * writes are no longer held.
   */
  synchronized void timeOutHeldWrites() {
    holdWrites = false;
    holdReattaches = false;
    heldWrites.forEach(held -> held.proposer().completeExceptionally(
        new ReplicationException(ErrorCode.OPERATION_TIMEOUT, "not applied in time; the outcome is unknown", null)));
  }

  @Override
  public synchronized CompletableFuture<Void> sync() {
    if (!holdSyncs) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> held = new CompletableFuture<>();
    heldSyncs.add(held);
    return held;
  }

  /** From now on syncs wait for {@link #releaseSyncs}. */
  synchronized void holdSyncs() {
    holdSyncs = true;
  }

  /** The number of syncs waiting. */
  synchronized int heldSyncs() {
    return heldSyncs.size();
  }

  /** Completes every held sync (outside this log's lock, as Ratis would, on its own thread). */
  void releaseSyncs() {
    Queue<CompletableFuture<Void>> release;
    synchronized (this) {
      holdSyncs = false;
      release = new ArrayDeque<>(heldSyncs);
      heldSyncs.clear();
    }
    release.forEach(sync -> sync.complete(null));
  }

  @Override
  public boolean isLeader() {
    return true;
  }

  @Override
  public CompletableFuture<Void> forwardHeartbeats(java.util.Collection<Long> sessionIds) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public dev.corral.server.replication.GroupView view() {
    return new dev.corral.server.replication.GroupView("1", dev.corral.server.replication.GroupView.Role.LEADER, 1,
        "1", java.util.List.of("1"));
  }

  @Override
  public void takeSnapshot() {}

  @Override
  public void close() {}
}
