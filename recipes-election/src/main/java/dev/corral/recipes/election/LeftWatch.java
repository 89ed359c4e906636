package dev.corral.recipes.election;

import dev.corral.client.CoordinationClient;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;

/**
 * A one-shot watch an election recipe left: on {@code path}, by {@code
 * watcher}, of {@code type}. Dropped without waiting once no longer wanted:
 * the client forgets it at once (so neither it nor a reconnect keeps it), the
 * server when it is told; one that fired already is simply not found.
 */
record LeftWatch(String path, Watcher watcher, WatcherType type) {
  void drop(CoordinationClient client) {
    client.async().removeWatches(path, watcher, type, true);
  }

  /** {@code next}, dropping {@code before} (which may be null) if it is another watch. */
  static LeftWatch replace(CoordinationClient client, LeftWatch before, LeftWatch next) {
    if (before != null && !before.equals(next)) {
      before.drop(client);
    }
    return next;
  }
}
