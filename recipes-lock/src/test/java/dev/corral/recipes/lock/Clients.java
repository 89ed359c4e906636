package dev.corral.recipes.lock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.NoNodeException;
import dev.corral.client.Paths;
import dev.corral.client.SequentialNames;
import dev.corral.client.grpc.CorralClient;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** The clients (sessions) and threads of one test, all closed after it. */
final class Clients implements AutoCloseable {
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  private final TestingServer server;
  private final List<CoordinationClient> open = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  Clients(TestingServer server) {
    this.server = server;
  }

  /** A new, connected client: a new session. */
  CoordinationClient newClient() throws InterruptedException {
    return newClient(builder -> { });
  }

  /** A new, connected client with more settings. */
  synchronized CoordinationClient newClient(Consumer<CorralClient.Builder> settings) throws InterruptedException {
    CorralClient.Builder builder = CorralClient.builder()
        .connectString(server.getConnectString())
        .sessionTimeout(SESSION_TIMEOUT);
    settings.accept(builder);
    CoordinationClient client = builder.build();
    open.add(client);
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS), "client connected");
    return client;
  }

  /** A new client whose calls and watch events are counted. */
  CountingClient newCountingClient() throws InterruptedException {
    return CountingClient.wrap(newClient());
  }

  /** Threads for the test's concurrent work (interrupted and awaited on close). */
  ExecutorService threads() {
    return threads;
  }

  @Override
  public synchronized void close() throws InterruptedException {
    threads.shutdownNow();
    boolean stopped = threads.awaitTermination(60, TimeUnit.SECONDS);
    for (CoordinationClient client : open) {
      client.close();
    }
    open.clear();
    assertTrue(stopped, "every test thread stopped");
  }

  /** The lock nodes (names with a sequence suffix) anywhere under {@code path}. */
  static int lockNodesUnder(CoordinationClient client, String path) throws CoordinationException, InterruptedException {
    List<String> children;
    try {
      children = client.getChildren(path);
    } catch (NoNodeException gone) {
      return 0;
    }
    int count = 0;
    for (String child : children) {
      if (SequentialNames.sequenceOf(child) >= 0) {
        count++;
      } else {
        count += lockNodesUnder(client, Paths.join(path, child));
      }
    }
    return count;
  }
}
