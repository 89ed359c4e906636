package dev.corral.server.tree;

/**
 * The versions of the rules by which txns change the tree. A log entry carries
 * the version it was formed under and is applied by it, so that a log written
 * before a rule changed replays to the same tree (and the same sequential
 * names its clients were told) after an upgrade.
 */
public enum TreeRules {
  /** Logs written before rule versions: a child's delete counts in its parent's child counter. */
  V0(0, true, false),
  /** As ZooKeeper: only a child's create counts in its parent's child counter, and so in sequential numbers. */
  V1(1, false, false),
  /**
   * As V1, and a container left empty by a change is removed only if it ever
   * had a child, as ZooKeeper's: one deleted and created again in the multi
   * that emptied it stays (V1 removed the new one, though the multi said it
   * was created).
   */
  V2(2, false, true);

  /** The rules this server writes new entries under. */
  public static final TreeRules CURRENT = V2;

  private final int version;
  private final boolean deleteCountsInChildCounter;
  private final boolean onlyContainersThatHadChildrenGo;

  TreeRules(int version, boolean deleteCountsInChildCounter, boolean onlyContainersThatHadChildrenGo) {
    this.version = version;
    this.deleteCountsInChildCounter = deleteCountsInChildCounter;
    this.onlyContainersThatHadChildrenGo = onlyContainersThatHadChildrenGo;
  }

  /** The number a log entry carries. */
  public int version() {
    return version;
  }

  boolean deleteCountsInChildCounter() {
    return deleteCountsInChildCounter;
  }

  /** Whether an empty container goes only if it ever had a child (its child counter is not 0). */
  boolean onlyContainersThatHadChildrenGo() {
    return onlyContainersThatHadChildrenGo;
  }

  /**
   * The rules a log entry names.
   *
   * @throws IllegalStateException for a version this server does not know
   *     (an entry formed by a newer server): applying it by other rules could
   *     make a tree that differs from the other servers'
   */
  public static TreeRules of(int version) {
    for (TreeRules rules : values()) {
      if (rules.version == version) {
        return rules;
      }
    }
    throw new IllegalStateException("a log entry written under tree rules " + version
        + ", which this server does not know (it knows up to " + CURRENT.version + "); upgrade this server");
  }
}
