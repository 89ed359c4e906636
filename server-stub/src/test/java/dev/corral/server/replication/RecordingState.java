package dev.corral.server.replication;

import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.TreeRules;
import dev.corral.server.tree.TreeSnapshot;
import dev.corral.server.tree.Zxid;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ReplicatedState} over a real {@link DataTree} that records every
 * entry it applies and, while {@link #holdApplies()} is in force, blocks the
 * apply thread.
 */
final class RecordingState implements ReplicatedState {
  /** One applied log entry. */
  record Applied(long index, LogEntry entry) {}

  private final List<Applied> applied = new ArrayList<>(); // guarded by this
  private DataTree tree = new DataTree(); // guarded by this
  private int restores; // guarded by this
  private volatile CountDownLatch gate = new CountDownLatch(0);
  /** Counted down when an apply first waits at a closed gate. */
  private volatile CountDownLatch held = new CountDownLatch(1);
  private volatile boolean breakNextApply;
  private volatile Throwable failure;

  @Override
  public void apply(long logIndex, LogEntry entry, AppliedTxnListener listener) {
    awaitGate();
    if (breakNextApply) {
      breakNextApply = false;
      throw new IllegalStateException("apply broke on purpose");
    }
    synchronized (this) {
      for (int i = 0; i < entry.getTxnsCount(); i++) {
        Txn txn = entry.getTxns(i);
        listener.applied(txn, tree.apply(Zxid.of(logIndex, i), entry.getTimeMs(), TreeRules.of(entry.getRules()), txn));
      }
      applied.add(new Applied(logIndex, entry));
    }
  }

  @Override
  public synchronized TreeSnapshot snapshot() {
    return tree.snapshot();
  }

  @Override
  public synchronized void restore(DataTree restored) {
    tree = restored;
    restores++;
  }

  @Override
  public synchronized long lastZxid() {
    return tree.lastZxid();
  }

  @Override
  public void leaderChanged(boolean thisMemberLeads) {}

  @Override
  public void leaderUnreachable(String why) {}

  @Override
  public void leaderReachable() {}

  @Override
  public void heardFrom(java.util.List<Long> sessionIds) {}

  @Override
  public void failed(Throwable cause) {
    failure = cause;
  }

  /** Makes the next apply throw, as a bug in the state would. */
  void breakNextApply() {
    breakNextApply = true;
  }

  /** What {@link #failed} was told, if anything. */
  Throwable failure() {
    return failure;
  }

  synchronized List<Applied> applied() {
    return List.copyOf(applied);
  }

  synchronized int restores() {
    return restores;
  }

  synchronized long digest() {
    return tree.digest();
  }

  synchronized int nodeCount() {
    return tree.nodeCount();
  }

  /** Blocks the apply thread until {@link #releaseApplies()}. */
  void holdApplies() {
    held = new CountDownLatch(1);
    gate = new CountDownLatch(1);
  }

  /** Waits until an apply is blocked by {@link #holdApplies()}. */
  void awaitHeldApply(long seconds) throws InterruptedException {
    if (!held.await(seconds, TimeUnit.SECONDS)) {
      throw new AssertionError("no apply was held within " + seconds + " s");
    }
  }

  void releaseApplies() {
    gate.countDown();
  }

  private void awaitGate() {
    try {
      CountDownLatch closed = gate;
      if (closed.getCount() > 0) {
        held.countDown();
      }
      closed.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while held", e);
    }
  }
}
