package dev.corral.server.replication;

import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.TxnResult;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/** Puts txns into the replicated log. */
public interface Replicator extends AutoCloseable {
  /**
   * Proposes a txn (origin and proposal id are filled in here). The future
   * completes on the apply thread, right after this server applied the txn,
   * with its result; or exceptionally with a {@link ReplicationException}
   * (NOT_READY when no leader/quorum, OPERATION_TIMEOUT when it took too long:
   * the txn may still be applied later).
   */
  CompletableFuture<TxnResult> propose(Txn.Builder txn);

  /**
   * Completes once this server has applied every change committed before the
   * call (Raft ReadIndex, then the local apply). On a single server at once.
   */
  CompletableFuture<Void> sync();

  /** True when this server is the Raft leader (a single server always is once started). */
  boolean isLeader();

  /**
   * Tells the leader's session tracker that these sessions' clients were heard
   * from here (a follower's batch, sent every half tick). Fails when no leader takes it.
   */
  CompletableFuture<Void> forwardHeartbeats(Collection<Long> sessionIds);

  /** This member's role, term and leader as it sees them now. */
  GroupView view();

  /** Takes a snapshot now (used on clean shutdown). */
  void takeSnapshot();

  @Override
  void close();
}
