package dev.corral.server.tree;

import dev.corral.proto.internal.AppliedProposal;
import dev.corral.proto.internal.Txn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Which proposal ids of each proposer (origin) were applied, as ranges of
 * consecutive ids. A txn already in a range is a duplicate: Raft committed its
 * entry twice (a follower's forwarding client re-sent it to a new leader that
 * did not know it was committed). Such a txn is skipped, the same way on every
 * member, since the ranges are part of the replicated state and snapshots.
 *
 * <p>Exact, not a high-water mark: after a leader change a proposer's entries
 * can commit out of their sending order. Ranges more than {@link #WINDOW} ids
 * below the highest applied are forgotten (a re-sent entry arrives within an
 * operation timeout), so a proposer's ranges stay few.
 */
final class AppliedProposals {
  static final long WINDOW = 1_000_000;

  /** Per origin: range start -> range end (inclusive). */
  private final Map<Long, NavigableMap<Long, Long>> ranges;

  AppliedProposals() {
    this(new HashMap<>());
  }

  private AppliedProposals(Map<Long, NavigableMap<Long, Long>> ranges) {
    this.ranges = ranges;
  }

  /** True when {@code txn} was applied already (txns without an origin are never duplicates). */
  boolean isDuplicate(Txn txn) {
    NavigableMap<Long, Long> applied = ranges.get(txn.getOrigin());
    if (txn.getOrigin() == 0 || applied == null) {
      return false;
    }
    long id = txn.getProposalId();
    Map.Entry<Long, Long> range = applied.floorEntry(id);
    return (range != null && id <= range.getValue()) || id < applied.lastEntry().getValue() - WINDOW;
  }

  void applied(Txn txn) {
    if (txn.getOrigin() == 0) {
      return;
    }
    NavigableMap<Long, Long> applied = ranges.computeIfAbsent(txn.getOrigin(), o -> new TreeMap<>());
    long id = txn.getProposalId();
    long first = id;
    long last = id;
    Map.Entry<Long, Long> below = applied.floorEntry(id - 1);
    if (below != null && below.getValue() >= id - 1) {
      first = below.getKey();
      last = Math.max(last, below.getValue());
    }
    Long aboveLast = applied.get(id + 1);
    if (aboveLast != null) {
      applied.remove(id + 1);
      last = Math.max(last, aboveLast);
    }
    applied.put(first, last);
    long forgetBelow = applied.lastEntry().getValue() - WINDOW;
    applied.headMap(forgetBelow).entrySet().removeIf(r -> r.getValue() < forgetBelow);
  }

  List<AppliedProposal> toProto() {
    List<AppliedProposal> out = new ArrayList<>();
    ranges.forEach((origin, applied) -> applied.forEach((first, last) -> out.add(
        AppliedProposal.newBuilder().setOrigin(origin).setFirst(first).setLast(last).build())));
    return out;
  }

  static AppliedProposals fromProto(List<AppliedProposal> marks) {
    Map<Long, NavigableMap<Long, Long>> ranges = new HashMap<>();
    marks.forEach(m -> ranges.computeIfAbsent(m.getOrigin(), o -> new TreeMap<>()).put(m.getFirst(), m.getLast()));
    return new AppliedProposals(ranges);
  }
}
