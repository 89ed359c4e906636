package dev.corral.client;

import java.util.List;
import java.util.Optional;

/** The result of one {@link Op} of a multi, of the matching kind. */
public sealed interface OpResult {
  /** A node was created. */
  record CreateResult(String path, Stat stat) implements OpResult {}

  /** A node was deleted. */
  record DeleteResult() implements OpResult {}

  /** Data was set. */
  record SetDataResult(Stat stat) implements OpResult {}

  /** A check passed. */
  record CheckResult() implements OpResult {}

  /** Children listed, sorted, with the parent's Stat. */
  record GetChildrenResult(List<String> children, Stat stat) implements OpResult {
    public GetChildrenResult {
      children = List.copyOf(children);
    }
  }

  /** Data read. */
  record GetDataResult(NodeData data) implements OpResult {}

  /** Existence told. */
  record ExistsResult(Optional<Stat> stat) implements OpResult {}

  /**
   * In a failed multi: this op's error (ROLLED_BACK for ops undone because
   * another failed). In a multi of reads only, which never fails as a whole
   * (as ZooKeeper's multiRead): the error of a read that failed (NO_NODE).
   */
  record ErrorResult(Code code, String message) implements OpResult {}
}
