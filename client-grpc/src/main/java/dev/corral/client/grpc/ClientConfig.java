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
 */
record ClientConfig(
    List<ServerList.Address> servers,
    Duration sessionTimeout,
    Duration connectionTimeout,
    RetryPolicy retryPolicy,
    Namespace namespace,
    Executor executor,
    ClientInterceptor interceptor) {}
