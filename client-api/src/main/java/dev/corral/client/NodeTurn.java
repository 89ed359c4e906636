package dev.corral.client;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a sequential node's turn: until no sibling with a lower
 * sequence counter is left, as a {@link AddWatchMode#FIRST} watch tells. A
 * fair lock's waiter learns that it is first from the event itself, with no
 * listing of the children after it (compare {@link NodeDeletion}, which
 * watches one predecessor and leaves the caller to list again).
 */
public final class NodeTurn {
  /** How a wait ended. */
  public enum Outcome {
    /** No sibling with a lower counter is left. */
    FIRST,
    /** The node is gone. */
    GONE,
    /** The time passed first (or the watch could not be kept): look again. */
    WAITING
  }

  private NodeTurn() {}

  /** Waits at most {@code time} for the turn of the sequential node at {@code path}. */
  public static Outcome await(CoordinationClient client, String path, long time, TimeUnit unit)
      throws CoordinationException, InterruptedException {
    FirstEvent watcher = new FirstEvent();
    try {
      client.addWatch(path, AddWatchMode.FIRST, watcher);
    } catch (NoNodeException gone) {
      return Outcome.GONE;
    }
    Optional<EventType> fired = watcher.await(time, unit);
    if (fired.isEmpty()) {
      // not waiting for the server (the caller's deadline must hold on a broken connection): the client forgets it at once
      client.async().removeWatches(path, watcher, WatcherType.FIRST, true);
      return Outcome.WAITING;
    }
    return fired.get() == EventType.NODE_FIRST ? Outcome.FIRST : Outcome.GONE;
  }
}
