package dev.corral.client;

/** What happened to the node a watch was on, or to the watch itself ({@link #isWatchRemoval()}). */
public enum EventType {
  NODE_CREATED,
  NODE_DELETED,
  NODE_DATA_CHANGED,
  NODE_CHILDREN_CHANGED,
  /** No sibling with a lower sequence counter is left ({@link AddWatchMode#FIRST}). */
  NODE_FIRST,
  /**
   * {@link CoordinationClient#removeWatches} removed the watcher's data or exists
   * watch (as ZooKeeper's DataWatchRemoved). This and the other *_WATCH_REMOVED
   * events come from the client, not from a change: their zxid is -1.
   */
  DATA_WATCH_REMOVED,
  /** {@link CoordinationClient#removeWatches} removed the watcher's child watch (ChildWatchRemoved). */
  CHILD_WATCH_REMOVED,
  /** {@link CoordinationClient#removeWatches} removed the watcher's persistent or recursive watch. */
  PERSISTENT_WATCH_REMOVED,
  /** {@link CoordinationClient#removeWatches} removed the watcher's {@link AddWatchMode#FIRST} watch. */
  FIRST_WATCH_REMOVED;

  /** True for the events that tell a watcher its watch was removed, not that a node changed. */
  public boolean isWatchRemoval() {
    return switch (this) {
      case DATA_WATCH_REMOVED, CHILD_WATCH_REMOVED, PERSISTENT_WATCH_REMOVED, FIRST_WATCH_REMOVED -> true;
      case NODE_CREATED, NODE_DELETED, NODE_DATA_CHANGED, NODE_CHILDREN_CHANGED, NODE_FIRST -> false;
    };
  }
}
