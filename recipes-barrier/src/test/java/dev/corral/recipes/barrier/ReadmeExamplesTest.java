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
import dev.corral.recipes.election.LeaderSelector;
import dev.corral.recipes.election.LeaderSelectorListenerAdapter;
import dev.corral.recipes.lock.InterProcessMutex;
import dev.corral.recipes.lock.InterProcessReadWriteLock;
import dev.corral.recipes.lock.InterProcessSemaphoreV2;
import dev.corral.recipes.lock.Lease;
import dev.corral.testing.TestingServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

  @Test
  void readWriteLockExampleRunsAsShown() throws Exception {
    List<String> reads = new CopyOnWriteArrayList<>();
    Catalog catalog = () -> reads.add("read");
    // example: readwrite
    InterProcessReadWriteLock catalogLock = new InterProcessReadWriteLock(client, "/locks/catalog");
    catalogLock.readLock().acquire();
    try {
      catalog.read();
    } finally {
      catalogLock.readLock().release();
    }
    assertEquals(List.of("read"), reads);
    assertTrue(!catalogLock.readLock().isAcquiredInThisProcess());
    assertReadmeShows("readwrite");
  }

  @Test
  void semaphoreExampleRunsAsShown() throws Exception {
    List<String> ran = new CopyOnWriteArrayList<>();
    Jobs jobs = ran::add;
    // example: semaphore
    InterProcessSemaphoreV2 gpus = new InterProcessSemaphoreV2(client, "/semaphores/gpu", 4);
    Optional<Lease> lease = gpus.acquire(10, TimeUnit.SECONDS);
    if (lease.isPresent()) {
      try (Lease held = lease.get()) {
        jobs.run(held.getNodeName());
      }
    }
    assertEquals(1, ran.size());
    assertEquals(List.of(), gpus.getParticipantNodes(), "the lease was returned");
    assertReadmeShows("semaphore");
  }

  @Test
  void selectorExampleRunsAsShown() throws Exception {
    CountDownLatch rounds = new CountDownLatch(2);
    Scheduler scheduler = rounds::countDown;
    // example: selector
    LeaderSelector selector = new LeaderSelector(client, "/election/scheduler", new LeaderSelectorListenerAdapter() {
      @Override
      public void takeLeadership(CoordinationClient leader) throws InterruptedException {
        scheduler.runOneRound(); // interrupted at once on SUSPENDED or LOST
      }
    });
    selector.autoRequeue();
    selector.start();

    assertTrue(rounds.await(60, TimeUnit.SECONDS), "auto-requeue leads again after each round");
    selector.close();
    assertReadmeShows("selector");
  }

  @Test
  void doubleBarrierExampleRunsAsShown() throws Exception {
    List<String> done = new CopyOnWriteArrayList<>();
    Runnable work = () -> done.add("work");
    Thread otherMember = new Thread(() -> {
      try (CoordinationClient other = CorralClient.builder().connectString(connectString).build()) {
        DistributedDoubleBarrier mine = new DistributedDoubleBarrier(other, "/barriers/batch", 2);
        mine.enter();
        mine.leave();
      } catch (CoordinationException | InterruptedException e) {
        done.add("failed: " + e);
      }
    });
    otherMember.start();
    // example: doublebarrier
    DistributedDoubleBarrier batch = new DistributedDoubleBarrier(client, "/barriers/batch", 2);
    batch.enter(); // returns once 2 members have entered
    work.run();
    batch.leave(); // returns once every member has left

    otherMember.join(60_000);
    assertEquals(List.of("work"), done);
    assertReadmeShows("doublebarrier");
  }

  /** Something read under the read lock. */
  interface Catalog {
    void read();
  }

  /** Work done under a lease. */
  interface Jobs {
    void run(String leaseNode);
  }

  /** Work done while leading. */
  interface Scheduler {
    void runOneRound() throws InterruptedException;
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
