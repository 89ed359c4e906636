package dev.corral.recipes.lock;

import dev.corral.client.Protection;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Who gets a lock among the nodes of one lock path: a value handed to the
 * {@link LockDriver}, so that mutex, read lock, write lock and semaphore share
 * one acquire loop and differ only in this rule.
 */
@FunctionalInterface
interface OrderingRule {

  /**
   * Decides for {@code ours}, given every participant's node name sorted by
   * sequence (ours among them).
   */
  Verdict decide(List<String> sorted, String ours);

  /**
   * The outcome: granted; or granted once ours is the first node by sequence
   * ({@code untilFirst}: wait for its turn); or the one node whose deletion
   * may change the answer; or (none of these) any change of the lock path's
   * children.
   */
  record Verdict(boolean granted, boolean untilFirst, Optional<String> watch) {
    static Verdict grant() {
      return new Verdict(true, false, Optional.empty());
    }

    static Verdict waitForTurn() {
      return new Verdict(false, true, Optional.empty());
    }

    static Verdict waitFor(String name) {
      return new Verdict(false, false, Optional.of(name));
    }

    static Verdict waitForAnyChange() {
      return new Verdict(false, false, Optional.empty());
    }
  }

  /**
   * Granted to the first node by sequence (a fair mutex); everyone else waits
   * for its own node's turn, which only the deletion of its immediate
   * predecessor brings (no herd), and is told so by that event alone.
   */
  static OrderingRule first() {
    return (sorted, ours) -> indexOf(sorted, ours) == 0 ? Verdict.grant() : Verdict.waitForTurn();
  }

  /**
   * The write lock: granted to the first node by sequence, unless a reader
   * that downgraded from the write lock still holds its read node (created
   * later, while it held the write lock): a writer that was already waiting must
   * not overtake it. Watches its predecessor, else that read node.
   */
  static OrderingRule writers(String downgradePrefix) {
    return (sorted, ours) -> {
      int index = indexOf(sorted, ours);
      if (index > 0) {
        return Verdict.waitFor(sorted.get(index - 1));
      }
      for (String name : sorted) {
        if (Protection.unprotected(name).startsWith(downgradePrefix)) {
          return Verdict.waitFor(name);
        }
      }
      return Verdict.grant();
    };
  }

  /**
   * The read lock: granted unless a write node comes earlier, or at once if
   * the calling thread holds the write lock (downgrade). A waiting reader
   * watches the nearest earlier write node only.
   */
  static OrderingRule readers(String writePrefix, BooleanSupplier holdsWriteLock) {
    return (sorted, ours) -> {
      if (holdsWriteLock.getAsBoolean()) {
        return Verdict.grant();
      }
      int index = indexOf(sorted, ours);
      for (int i = index - 1; i >= 0; i--) {
        if (Protection.unprotected(sorted.get(i)).startsWith(writePrefix)) {
          return Verdict.waitFor(sorted.get(i));
        }
      }
      return Verdict.grant();
    };
  }

  /**
   * Semaphore leases, for a caller that holds the semaphore's internal mutex
   * (so only it adds nodes): granted while at most {@code maxLeases} nodes
   * exist, ours included (the limit as it is when asked); otherwise wait for
   * any of them to go.
   */
  static OrderingRule atMost(IntSupplier maxLeases) {
    return (sorted, ours) -> {
      indexOf(sorted, ours);
      return sorted.size() <= maxLeases.getAsInt() ? Verdict.grant() : Verdict.waitForAnyChange();
    };
  }

  private static int indexOf(List<String> sorted, String ours) {
    int index = sorted.indexOf(ours);
    if (index < 0) {
      throw new IllegalStateException("own node " + ours + " is not among the participants");
    }
    return index;
  }
}
