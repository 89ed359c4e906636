package dev.corral.client;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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
    CountDownLatch fired = new CountDownLatch(1);
    AtomicReference<EventType> type = new AtomicReference<>();
    Watcher watcher = event -> {
      type.set(event.type());
      fired.countDown();
    };
    try {
      client.addWatch(path, AddWatchMode.FIRST, watcher);
    } catch (NoNodeException gone) {
      return Outcome.GONE;
    }
    if (!fired.await(time, unit)) {
      try {
        client.removeWatches(path, watcher, WatcherType.FIRST);
      } catch (CoordinationException firedOrDisconnected) {
        // it fired meanwhile, or the connection is down (the watch dies with it)
      }
      return Outcome.WAITING;
    }
    return type.get() == EventType.NODE_FIRST ? Outcome.FIRST : Outcome.GONE;
  }
}
