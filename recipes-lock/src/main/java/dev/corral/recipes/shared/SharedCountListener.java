package dev.corral.recipes.shared;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;

/**
 * Told of every change of a shared count seen, and of the client's connection
 * state changes, as Curator's. While the connection is down no change is
 * seen; after it, the count is read again, and a change made meanwhile is told.
 */
public interface SharedCountListener extends ConnectionStateListener {
  /** The count changed to {@code newCount}. */
  void countHasChanged(SharedCountReader sharedCount, int newCount) throws Exception;

  /** Nothing, unless overridden: a listener that needs only the count may be a lambda. */
  @Override
  default void stateChanged(CoordinationClient client, ConnectionState newState) {
  }
}
