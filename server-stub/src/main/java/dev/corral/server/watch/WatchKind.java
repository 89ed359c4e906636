package dev.corral.server.watch;

import dev.corral.proto.v1.EventType;

/** The kinds of watch a session can leave on a path, and which events each one hears. */
public enum WatchKind {
  /** One-shot, from get_data, or exists on an existing node. */
  DATA(true, EventType.NODE_DATA_CHANGED, EventType.NODE_DELETED),
  /** One-shot, from exists on a missing node. */
  EXIST(true, EventType.NODE_CREATED, EventType.NODE_DATA_CHANGED, EventType.NODE_DELETED),
  /** One-shot, from get_children. */
  CHILD(true, EventType.NODE_CHILDREN_CHANGED, EventType.NODE_DELETED),
  /** Persistent, on one path: every event type. */
  PERSISTENT(false, EventType.NODE_CREATED, EventType.NODE_DELETED, EventType.NODE_DATA_CHANGED,
      EventType.NODE_CHILDREN_CHANGED),
  /** Persistent, on a path and its descendants: everything but children changes. */
  PERSISTENT_RECURSIVE(false, EventType.NODE_CREATED, EventType.NODE_DELETED, EventType.NODE_DATA_CHANGED),
  /** One-shot, from add_watch in FIRST mode: the node's turn came (no lower sequence left), or it went. */
  FIRST(true, EventType.NODE_FIRST, EventType.NODE_DELETED);

  private final boolean oneShot;
  private final EventType[] hears;

  WatchKind(boolean oneShot, EventType... hears) {
    this.oneShot = oneShot;
    this.hears = hears;
  }

  public boolean oneShot() {
    return oneShot;
  }

  boolean hears(EventType type) {
    for (EventType t : hears) {
      if (t == type) {
        return true;
      }
    }
    return false;
  }
}
