package dev.corral.recipes.barrier;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.grpc.CorralClient;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Clients (one session each) of one testing server, all closed by {@link #close()}. */
final class Clients implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(30);

  private final TestingServer server;
  private final List<CoordinationClient> clients = new ArrayList<>();

  Clients(TestingServer server) {
    this.server = server;
  }

  /** A connected client with a session timeout long enough to outlive a server restart. */
  CoordinationClient connect() throws InterruptedException {
    return connect(CorralClient.builder());
  }

  /**
   * A connected client whose calls made while the server is down wait 10
   * minutes for it: a recipe's timed call that returns before that kept its
   * own deadline.
   */
  CoordinationClient connectPatient() throws InterruptedException {
    return connect(CorralClient.builder().connectionTimeout(PATIENCE));
  }

  static final Duration PATIENCE = Duration.ofMinutes(10);

  /** As {@link #connectPatient()}, with a session the client gives up {@code sessionTimeout} after the server went. */
  CoordinationClient connectPatient(Duration sessionTimeout) throws InterruptedException {
    return connect(CorralClient.builder().connectionTimeout(PATIENCE), sessionTimeout);
  }

  /**
   * A connected client whose calls made while the server is down fail with
   * ConnectionLoss after 1 s (per attempt of its retry policy), long before its
   * session could be given up: the client of Curator's testServerCrash.
   */
  CoordinationClient connectImpatient() throws InterruptedException {
    return connect(CorralClient.builder().connectionTimeout(Duration.ofSeconds(1)));
  }

  private CoordinationClient connect(CorralClient.Builder builder) throws InterruptedException {
    return connect(builder, Duration.ofSeconds(20));
  }

  private CoordinationClient connect(CorralClient.Builder builder, Duration sessionTimeout)
      throws InterruptedException {
    CoordinationClient client = builder
        .connectString(server.getConnectString())
        .sessionTimeout(sessionTimeout)
        .build();
    synchronized (clients) {
      clients.add(client);
    }
    assertTrue(client.blockUntilConnected(WAIT.toSeconds(), TimeUnit.SECONDS), "client did not connect");
    return client;
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(CoordinationClient::close);
      clients.clear();
    }
  }
}
