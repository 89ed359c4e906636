package dev.corral.client;

/** What happened to the node a watch was on. */
public enum EventType {
  NODE_CREATED,
  NODE_DELETED,
  NODE_DATA_CHANGED,
  NODE_CHILDREN_CHANGED,
  /** No sibling with a lower sequence counter is left ({@link AddWatchMode#FIRST}). */
  NODE_FIRST
}
