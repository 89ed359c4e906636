package dev.corral.recipes.barrier;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.NodeData;
import dev.corral.client.WatchedEvent;
import dev.corral.client.grpc.CorralClient;
import dev.corral.recipes.election.LeaderLatch;
import dev.corral.recipes.election.LeaderLatchListener;
import dev.corral.recipes.lock.InterProcessMutex;
import dev.corral.testing.TestingServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs every example of the README, and checks that the README still shows
 * exactly this code (each of its lines, in order), so the two cannot drift.
 */
@Timeout(120)
class ReadmeExamplesTest {
  private static final Path README = Path.of("..", "README.md");
  private static final Path THIS_SOURCE =
      Path.of("src", "test", "java", "dev", "corral", "recipes", "barrier", "ReadmeExamplesTest.java");

  static TestingServer server;
  String connectString;
  CoordinationClient client;

  @BeforeAll
  static void startServer() {
    server = new TestingServer();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  @BeforeEach
  void connect() {
    connectString = server.getConnectString();
    client = CorralClient.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(10)).build();
  }

  @AfterEach
  void disconnect() {
    client.close();
  }

  @Test
  void clientExampleRunsAsShown() throws Exception {
    BlockingQueue<WatchedEvent> changes = new LinkedBlockingQueue<>();
    // example: client
    try (CoordinationClient client = CorralClient.builder()
        .connectString(connectString) // e.g. "127.0.0.1:7181" or "h1:7181,h2:7181,h3:7181"
        .sessionTimeout(Duration.ofSeconds(10))
        .build()) {
      client.create("/config", "v1".getBytes(UTF_8), CreateMode.PERSISTENT);
      NodeData config = client.getData("/config", changes::add); // a one-shot watch
      client.setData("/config", "v2".getBytes(UTF_8));
      WatchedEvent changed = changes.take(); // NODE_DATA_CHANGED /config

      assertEquals("v1", new String(config.data(), UTF_8));
      assertEquals(EventType.NODE_DATA_CHANGED, changed.type());
      assertEquals("/config", changed.path());
    }
    assertReadmeShows("client");
  }

  @Test
  void mutexExampleRunsAsShown() throws Exception {
    FencedStore orders = new FencedStore();
    // example: mutex
    InterProcessMutex lock = new InterProcessMutex(client, "/locks/orders");
    if (lock.acquire(10, TimeUnit.SECONDS)) {
      try {
        long fencingToken = lock.fencingToken();
        orders.write(fencingToken, "order-17");
      } finally {
        lock.release();
      }
    }
    assertEquals(List.of("order-17"), orders.values);
    assertTrue(orders.highestToken > 0);
    assertReadmeShows("mutex");
  }

  @Test
  void latchExampleRunsAsShown() throws Exception {
    BlockingQueue<String> leadership = new LinkedBlockingQueue<>();
    List<Long> published = new CopyOnWriteArrayList<>();
    Reports reports = published::add;
    // example: latch
    try (LeaderLatch latch = new LeaderLatch(client, "/election/reports", "worker-1")) {
      latch.addListener(new LeaderLatchListener() {
        @Override
        public void isLeader() {
          leadership.add("leading");
        }

        @Override
        public void notLeader() {
          leadership.add("stopped leading"); // also on SUSPENDED: stop acting as leader at once
        }
      });
      latch.start();
      if (latch.await(30, TimeUnit.SECONDS)) {
        reports.publish(latch.fencingToken());
      }
    }
    assertEquals("leading", leadership.poll(30, TimeUnit.SECONDS));
    assertEquals(1, published.size());
    assertReadmeShows("latch");
  }

  @Test
  void barrierExampleRunsAsShown() throws Exception {
    CountDownLatch released = new CountDownLatch(1);
    List<Exception> failures = new CopyOnWriteArrayList<>();
    // example: barrier
    DistributedBarrier barrier = new DistributedBarrier(client, "/barriers/deploy");
    barrier.setBarrier();
    Thread waiter = new Thread(() -> {
      try {
        barrier.waitOnBarrier();
        released.countDown();
      } catch (CoordinationException | InterruptedException e) {
        failures.add(e);
      }
    });
    waiter.start();
    barrier.removeBarrier(); // everyone waiting goes on

    assertTrue(released.await(60, TimeUnit.SECONDS), "the waiter went on");
    waiter.join();
    assertEquals(List.of(), failures);
    assertReadmeShows("barrier");
  }

  /** A resource guarded by fencing tokens: it refuses writes older than one it has accepted. */
  static final class FencedStore {
    final List<String> values = new ArrayList<>();
    long highestToken;

    void write(long token, String value) {
      if (token < highestToken) {
        throw new IllegalStateException("stale fencing token " + token + " < " + highestToken);
      }
      highestToken = token;
      values.add(value);
    }
  }

  /** Where the leader publishes. */
  interface Reports {
    void publish(long fencingToken);
  }

  /** Every line of the README's example {@code name} stands, in order, in this source file. */
  private static void assertReadmeShows(String name) throws IOException {
    List<String> example = readmeExample(name);
    assertTrue(!example.isEmpty(), "the README has an example named " + name);
    List<String> source = Files.readAllLines(THIS_SOURCE).stream().map(String::trim).toList();
    int at = 0;
    for (String line : example) {
      while (at < source.size() && !source.get(at).equals(line)) {
        at++;
      }
      assertTrue(at < source.size(), "README example '" + name + "' shows a line this test does not run: " + line);
      at++;
    }
  }

  private static List<String> readmeExample(String name) throws IOException {
    List<String> lines = Files.readAllLines(README);
    int marker = lines.indexOf("<!-- example: " + name + " -->");
    List<String> example = new ArrayList<>();
    if (marker < 0) {
      return example;
    }
    for (int i = marker + 2; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
      if (!lines.get(i).isBlank()) {
        example.add(lines.get(i).trim());
      }
    }
    return example;
  }
}
