package dev.corral.server.tree;

import dev.corral.proto.internal.AppliedProposal;
import dev.corral.proto.internal.Txn;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * For each proposer (origin), the highest proposal id applied. A proposer
 * numbers its txns in the order it sends them and its entries commit in that
 * order, so a txn at or below the mark was applied already: Raft committed
 * its entry twice (a follower's forwarding client re-sent it to a new leader
 * that did not know it had been committed). Such a txn is skipped, the same way
 * on every member, since the marks are part of the replicated state.
 */
final class AppliedProposals {
  private final Map<Long, Long> highest;

  AppliedProposals() {
    this(new HashMap<>());
  }

  private AppliedProposals(Map<Long, Long> highest) {
    this.highest = highest;
  }

  /** True when {@code txn} was applied already (txns without an origin are never duplicates). */
  boolean isDuplicate(Txn txn) {
    Long mark = highest.get(txn.getOrigin());
    return txn.getOrigin() != 0 && mark != null && txn.getProposalId() <= mark;
  }

  void applied(Txn txn) {
    if (txn.getOrigin() != 0) {
      highest.merge(txn.getOrigin(), txn.getProposalId(), Math::max);
    }
  }

  List<AppliedProposal> toProto() {
    return highest.entrySet().stream()
        .map(e -> AppliedProposal.newBuilder().setOrigin(e.getKey()).setProposalId(e.getValue()).build())
        .toList();
  }

  static AppliedProposals fromProto(List<AppliedProposal> marks) {
    Map<Long, Long> highest = new HashMap<>();
    marks.forEach(m -> highest.merge(m.getOrigin(), m.getProposalId(), Math::max));
    return new AppliedProposals(highest);
  }
}
