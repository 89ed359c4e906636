package dev.corral.client;

/** Kinds of watch that {@link CoordinationClient#addWatch} leaves. */
public enum AddWatchMode {
  /** Every event on one path; stays until removed. */
  PERSISTENT,
  /** Created / deleted / data-changed events on a path and all its descendants. */
  PERSISTENT_RECURSIVE,
  /**
   * One-shot, on a sequential node (its name ends in a 10-digit counter):
   * {@link EventType#NODE_FIRST} once no sibling with a lower counter is left,
   * at once if none is now; {@link EventType#NODE_DELETED} if the node goes
   * first. The node must exist ({@link NoNodeException} otherwise). See
   * {@link NodeTurn}.
   */
  FIRST
}
