package dev.corral.client;

/**
 * Told of every connection state change, in order, on the executor given when
 * it was added (the client's own event thread by default). No change is skipped.
 */
@FunctionalInterface
public interface ConnectionStateListener {
  void stateChanged(CoordinationClient client, ConnectionState newState);
}
