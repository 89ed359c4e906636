package dev.corral.client;

/** Which watches {@link CoordinationClient#removeWatches} removes. */
public enum WatcherType {
  /** One-shot child watches. */
  CHILDREN,
  /** One-shot data and exists watches. */
  DATA,
  /** Persistent watches ({@link AddWatchMode#PERSISTENT}), not recursive ones (as ZooKeeper's Persistent). */
  PERSISTENT,
  /** Persistent-recursive watches ({@link AddWatchMode#PERSISTENT_RECURSIVE}). */
  PERSISTENT_RECURSIVE,
  /** One-shot FIRST watches ({@link AddWatchMode#FIRST}). */
  FIRST,
  /** Every kind. */
  ANY
}
