package dev.corral.client;

/** Which watches {@link CoordinationClient#removeWatches} removes. */
public enum WatcherType {
  /** One-shot child watches. */
  CHILDREN,
  /** One-shot data and exists watches. */
  DATA,
  /** Persistent and persistent-recursive watches. */
  PERSISTENT,
  /** One-shot FIRST watches ({@link AddWatchMode#FIRST}). */
  FIRST,
  /** Every kind. */
  ANY
}
