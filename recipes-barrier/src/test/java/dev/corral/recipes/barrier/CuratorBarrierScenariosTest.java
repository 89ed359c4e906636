package dev.corral.recipes.barrier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.testing.TestingServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Scenarios from Curator's barrier tests and from failures Curator users reported. */
class CuratorBarrierScenariosTest {
  private static final String PATH = "/barrier/curator";
  private static final long WAIT_SECONDS = 30;

  private TestingServer server;
  private Clients clients;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void startServer() {
    server = new TestingServer();
    clients = new Clients(server);
  }

  @AfterEach
  void closeEverything() throws InterruptedException {
    threads.shutdownNow();
    try {
      assertTrue(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS));
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
  }

  @Test
  void moreMembersThanTheQuantityAllEnterAndAllLeave() throws Exception {
    int qty = 3;
    AtomicInteger entered = new AtomicInteger();
    CountDownLatch allIn = new CountDownLatch(qty + 2);
    List<Future<Boolean>> members = new ArrayList<>();
    for (int i = 0; i < qty + 2; i++) {
      DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(clients.connect(), PATH, qty);
      members.add(threads.submit(() -> {
        assertTrue(barrier.enter(WAIT_SECONDS, TimeUnit.SECONDS), "entered");
        entered.incrementAndGet();
        // nobody leaves before all are in: members that arrived after the first ones had left would wait for a
        // new round of qty that never comes (the test failed that way when the last client connected late)
        allIn.countDown();
        assertTrue(allIn.await(WAIT_SECONDS, TimeUnit.SECONDS), "all members entered");
        return barrier.leave(WAIT_SECONDS, TimeUnit.SECONDS);
      }));
    }
    for (Future<Boolean> member : members) {
      assertTrue(member.get(WAIT_SECONDS * 2, TimeUnit.SECONDS), "left");
    }
    assertEquals(qty + 2, entered.get());
  }

  @Test
  void aMemberWhoseClientClosesInsideTheBarrierDoesNotWedgeTheOthersLeave() throws Exception {
    int qty = 3;
    List<CoordinationClient> memberClients = new ArrayList<>();
    List<DistributedDoubleBarrier> barriers = new ArrayList<>();
    for (int i = 0; i < qty; i++) {
      CoordinationClient client = clients.connect();
      memberClients.add(client);
      barriers.add(new DistributedDoubleBarrier(client, PATH, qty));
    }
    List<Future<Boolean>> entering = new ArrayList<>();
    for (DistributedDoubleBarrier barrier : barriers) {
      entering.add(threads.submit(() -> barrier.enter(WAIT_SECONDS, TimeUnit.SECONDS)));
    }
    for (Future<Boolean> enter : entering) {
      assertTrue(enter.get(WAIT_SECONDS, TimeUnit.SECONDS));
    }
    memberClients.get(0).close(); // dies inside the barrier
    List<Future<Boolean>> leaving = new ArrayList<>();
    for (DistributedDoubleBarrier barrier : barriers.subList(1, qty)) {
      leaving.add(threads.submit(() -> barrier.leave(WAIT_SECONDS, TimeUnit.SECONDS)));
    }
    for (Future<Boolean> leave : leaving) {
      assertTrue(leave.get(WAIT_SECONDS * 2, TimeUnit.SECONDS));
    }
    CoordinationClient observer = clients.connect();
    await().atMost(java.time.Duration.ofSeconds(WAIT_SECONDS)).until(() -> observer.exists(PATH).isEmpty()
        || observer.getChildren(PATH).isEmpty());
  }

  @Test
  void aBarrierRemovedAndSetAgainHoldsNewWaiters() throws Exception {
    DistributedBarrier barrier = new DistributedBarrier(clients.connect(), PATH);
    barrier.setBarrier();
    DistributedBarrier waiter = new DistributedBarrier(clients.connect(), PATH);
    Future<Boolean> waiting = threads.submit(() -> waiter.waitOnBarrier(WAIT_SECONDS, TimeUnit.SECONDS));
    barrier.removeBarrier();
    assertTrue(waiting.get(WAIT_SECONDS, TimeUnit.SECONDS));
    barrier.setBarrier();
    assertTrue(!waiter.waitOnBarrier(100, TimeUnit.MILLISECONDS));
    barrier.removeBarrier();
    assertTrue(waiter.waitOnBarrier(0, TimeUnit.SECONDS));
  }
}
