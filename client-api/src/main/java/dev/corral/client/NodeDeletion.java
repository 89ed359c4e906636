package dev.corral.client;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Waiting for a node to go away: the one mechanism every recipe uses to wait
 * for its predecessor (no herd: each waiter watches one node).
 */
public final class NodeDeletion {
  private NodeDeletion() {}

  /**
   * Waits until {@code path} does not exist, at most {@code time}. Returns
   * true if it is gone, false if the time passed first. Also returns (true or
   * false after re-checking) when the watch fires for another reason, so
   * callers loop over their own condition. A deletion event answers by itself:
   * waking up costs no further round trip.
   */
  public static boolean await(CoordinationClient client, String path, long time, TimeUnit unit)
      throws CoordinationException, InterruptedException {
    FirstEvent watcher = new FirstEvent();
    Optional<Stat> stat = client.exists(path, watcher);
    if (stat.isEmpty()) {
      forget(client, path, watcher); // exists left a creation watch we do not want
      return true;
    }
    Optional<EventType> fired = watcher.await(time, unit);
    if (fired.isEmpty()) {
      forget(client, path, watcher);
    } else if (fired.get() == EventType.NODE_DELETED) {
      return true;
    }
    return client.exists(path).isEmpty();
  }

  /**
   * Drops a watch that is no longer wanted, so watchers do not pile up on a
   * long-lived node. Does not wait for the server (a caller with a deadline
   * must not wait for a broken connection): the client forgets it at once.
   */
  private static void forget(CoordinationClient client, String path, Watcher watcher) {
    client.async().removeWatches(path, watcher, WatcherType.DATA, true);
  }
}
