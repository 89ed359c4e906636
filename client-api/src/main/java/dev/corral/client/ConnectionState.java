package dev.corral.client;

/** The client's connection, as Curator users know it. */
public enum ConnectionState {
  /** First connected: a new session. */
  CONNECTED(true),
  /** The stream broke; the session may still be alive. Operations wait or fail with ConnectionLoss. */
  SUSPENDED(false),
  /** Connected again: after SUSPENDED the same session; after LOST a new one. */
  RECONNECTED(true),
  /** The session is gone (expired, or no server reachable for a whole session timeout); its ephemerals are gone. */
  LOST(false),
  /** Reserved: connected to a server that serves reads only. */
  READ_ONLY(true);

  private final boolean connected;

  ConnectionState(boolean connected) {
    this.connected = connected;
  }

  /** True while requests can be served. */
  public boolean isConnected() {
    return connected;
  }
}
