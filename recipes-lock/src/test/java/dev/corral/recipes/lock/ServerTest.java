package dev.corral.recipes.lock;

import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/** One real server per test class; per test, a fresh lock path and clients closed after it. */
abstract class ServerTest {
  static final Duration PATIENCE = Duration.ofSeconds(60);

  static TestingServer server;
  Clients clients;
  String path;

  @BeforeAll
  static void startServer() {
    server = new TestingServer();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void setUp(TestInfo test) {
    clients = new Clients(server);
    path = "/test/" + getClass().getSimpleName() + "/" + test.getTestMethod().orElseThrow().getName();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    clients.close();
  }

  /** Makes a sequential node that is no lock node under the lock path, as a queue sharing it would. */
  void createQueueItem() throws CoordinationException, InterruptedException {
    clients.newClient().create(path + "/item-", new byte[0],
        CreateOptions.builder(CreateMode.PERSISTENT_SEQUENTIAL).creatingParents().build());
  }

  static long seconds(Duration duration) {
    return duration.toSeconds();
  }
}
