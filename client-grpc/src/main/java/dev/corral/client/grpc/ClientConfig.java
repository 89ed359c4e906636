package dev.corral.client.grpc;

import io.grpc.ClientInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The client's settings, as built by {@link CorralClient.Builder}.
 *
 * @param servers the servers, in connect-string order
 * @param sessionTimeout the requested session timeout (the server negotiates it)
 * @param connectionTimeout how long an operation waits for a connection
 * @param retryPolicy how operations are retried
 * @param namespace the path prefix
 * @param executor where watchers and listeners run (serialised); null for the client's own thread
 * @param interceptor a hook on the channel; null for none
 * @param session an existing session to re-attach first; null to open a new one
 */
record ClientConfig(
    List<ServerList.Address> servers,
    Duration sessionTimeout,
    Duration connectionTimeout,
    RetryPolicy retryPolicy,
    Namespace namespace,
    Executor executor,
    ClientInterceptor interceptor,
    SessionToJoin session) {

  /** A session another client opened, to re-attach: its id and password (a copy of the caller's). */
  record SessionToJoin(long id, byte[] password) {
    @Override
    public String toString() {
      return "session 0x" + Long.toHexString(id); // not the password
    }
  }
}
