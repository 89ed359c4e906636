package dev.corral.recipes.election;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
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
    CoordinationClient client = CorralClient.builder()
        .connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(20))
        .build();
    synchronized (clients) {
      clients.add(client);
    }
    assertTrue(client.blockUntilConnected(WAIT.toSeconds(), TimeUnit.SECONDS), "client did not connect");
    return client;
  }

  /**
   * Makes {@code path} (its parents as containers) in a session of its own,
   * as someone who takes no part in the election would; returns its path.
   */
  String createStranger(String path, CreateMode mode) throws CoordinationException, InterruptedException {
    return connect().create(path, new byte[0], CreateOptions.builder(mode).creatingParentContainers().build()).path();
  }

  @Override
  public void close() {
    synchronized (clients) {
      clients.forEach(CoordinationClient::close);
      clients.clear();
    }
  }
}
