package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;
import dev.corral.client.EventType;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import java.util.Arrays;
import java.util.concurrent.Executor;

/**
 * A revocable lock's watch on each node it holds: whenever the node's data
 * is the revoke message, the listener is told on the executor. The node's data
 * is read when the lock is granted (so a request made while the node still
 * waited is heard then) and again after every data change, until the node goes.
 */
final class Revocation<T> {
  private final CoordinationClient client;
  private final T lock;
  private final RevocationListener<? super T> listener;
  private final Executor executor;

  Revocation(CoordinationClient client, T lock, RevocationListener<? super T> listener, Executor executor) {
    this.client = client;
    this.lock = lock;
    this.listener = listener;
    this.executor = executor;
  }

  /**
   * Reads the held node at {@code node}, leaving a data watch that reads it again. Does not wait: a failed
   * read (the node went, or the session did) leaves nothing to watch. The read's answer comes on the client's
   * event or callback thread, never on the thread that receives answers.
   */
  void watch(String node) {
    Watcher onChange = new Watcher() {
      @Override
      public void process(WatchedEvent event) {
        if (event.type() == EventType.NODE_DATA_CHANGED) {
          watch(node);
        }
      }
    };
    client.async().getData(node, onChange).thenAccept(read -> {
      if (Arrays.equals(read.data(), Revoker.REVOKE_MESSAGE)) {
        executor.execute(() -> listener.revocationRequested(lock));
      }
    });
  }
}
