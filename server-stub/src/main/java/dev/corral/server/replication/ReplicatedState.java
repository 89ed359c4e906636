package dev.corral.server.replication;

import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.TreeSnapshot;
import dev.corral.server.tree.TxnResult;
import java.util.List;

/**
 * The state the Raft state machine drives: the data tree plus everything that
 * reacts to its changes (watches, sessions). Implemented by the server core;
 * the replication layer knows nothing of sessions or watches.
 */
public interface ReplicatedState {
  /**
   * Applies a committed entry. Called on one thread, in log order, once per
   * entry.
   *
   * <p>For each txn, in order, the state applies it, dispatches its watch
   * events, then calls {@code listener.applied(txn, result)} before applying
   * the next txn, still under its lock. The replicator completes the
   * proposer's future there, so that a session's response is ordered with the
   * watch events of the txns around it (responses and events in zxid order).
   */
  void apply(long logIndex, LogEntry entry, AppliedTxnListener listener);

  /** A consistent, immutable view of the tree that can be written on another thread. */
  TreeSnapshot snapshot();

  /** Replaces the whole tree (on start from a snapshot, or after a snapshot install). */
  void restore(DataTree tree);

  /** The zxid of the last applied change (0 for an empty tree). */
  long lastZxid();

  /**
   * The group has a new leader as this member sees it: {@code thisMemberLeads}
   * when it is this member. A new leader gives every session a fresh timeout.
   */
  void leaderChanged(boolean thisMemberLeads);

  /**
   * This member has had no leader it hears from for a while (a majority of the
   * ensemble is unreachable from it, or no election succeeds): it must not
   * serve sessions, since the majority may expire them meanwhile. Called again
   * on every check while that lasts, so streams attached since end too.
   */
  void leaderUnreachable(String why);

  /** A leader is heard from again after {@link #leaderUnreachable}: sessions may be served. */
  void leaderReachable();

  /** On the leader: a follower's clients of these sessions were heard from. */
  void heardFrom(List<Long> sessionIds);

  /**
   * Applying the log failed: this replica's state can no longer follow it and
   * it must stop serving (clients move to another server). Called once.
   */
  void failed(Throwable cause);

  /** Told of each txn right after it was applied; see {@link ReplicatedState#apply}. */
  @FunctionalInterface
  interface AppliedTxnListener {
    void applied(Txn txn, TxnResult result);
  }
}
