package dev.corral.recipes.election;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CreateMode;
import dev.corral.testing.TestingServer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Scenarios from Curator's election tests and from failures Curator users reported. */
class CuratorElectionScenariosTest {
  private static final String PATH = "/election/curator";

  private TestingServer server;
  private Clients clients;
  private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void startServer() {
    server = new TestingServer();
    clients = new Clients(server);
  }

  @AfterEach
  void closeEverything() throws Exception {
    threads.shutdownNow();
    try {
      for (AutoCloseable closeable : closeables) {
        closeable.close();
      }
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
    assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
  }

  private LeaderLatch latch(CoordinationClient client, String id) {
    LeaderLatch latch = new LeaderLatch(client, PATH, id);
    closeables.add(latch);
    return latch;
  }

  private LeaderSelector selector(CoordinationClient client, String id, LeaderSelectorListener listener) {
    LeaderSelector selector = new LeaderSelector(client, PATH, listener);
    selector.setId(id);
    closeables.add(selector);
    return selector;
  }

  @Test
  void manyLatchesOnOneClientHandLeadershipOnAsEachCloses() throws Exception {
    CoordinationClient client = clients.connect();
    List<LeaderLatch> live = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      LeaderLatch latch = latch(client, "p" + i);
      latch.start();
      live.add(latch);
    }
    while (!live.isEmpty()) {
      await().atMost(Clients.WAIT).until(() -> live.stream().filter(LeaderLatch::hasLeadership).count() == 1);
      LeaderLatch leader = live.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
      assertEquals(leader.getId(), leader.getLeader().getId(), "Participant.getId(), as Curator spells it");
      leader.close();
      assertFalse(leader.hasLeadership());
      live.remove(leader);
    }
    assertEquals("", latch(client, "x").getLeader().id());
  }

  @Test
  void awaitReturnsOnceTheLeaderCloses() throws Exception {
    LeaderLatch first = latch(clients.connect(), "first");
    first.start();
    assertTrue(first.await(30, TimeUnit.SECONDS));
    LeaderLatch second = latch(clients.connect(), "second");
    second.start();
    Future<?> awaiting = threads.submit(() -> {
      second.await();
      return null;
    });
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);
    first.close();
    awaiting.get(30, TimeUnit.SECONDS);
    assertTrue(second.hasLeadership());
  }

  @Test
  void aListenerThatThrowsDoesNotStopTheLatchOrOtherListeners() throws Exception {
    LeaderLatch first = latch(clients.connect(), "first");
    EventLog log = new EventLog();
    first.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void notLeader() {
        throw new IllegalStateException("listener bug");
      }
    });
    first.addListener(log.latchListener());
    first.start();
    log.awaitEvents("isLeader");
    server.stop();
    log.awaitEvents("isLeader", "notLeader");
    server.start();
    log.awaitEvents("isLeader", "notLeader", "isLeader");
    assertTrue(first.hasLeadership());
  }

  @Test
  void aLatchStartedWhileTheServerIsDownLeadsOnceItIsUp() throws Exception {
    CoordinationClient client = clients.connect();
    server.stop();
    await().atMost(Clients.WAIT).until(() -> !client.state().isConnected());
    LeaderLatch latch = latch(client, "late");
    latch.start();
    assertFalse(latch.await(200, TimeUnit.MILLISECONDS));
    server.start();
    assertTrue(latch.await(30, TimeUnit.SECONDS));
  }

  @Test
  void aFollowerWhoseSessionExpiredRejoinsAndLeadsWhenTheLeaderLeaves() throws Exception {
    LeaderLatch leader = latch(clients.connect(), "leader");
    leader.start();
    assertTrue(leader.await(30, TimeUnit.SECONDS));
    CoordinationClient followerClient = clients.connect();
    LeaderLatch follower = latch(followerClient, "follower");
    follower.start();
    await().atMost(Clients.WAIT).until(() -> leader.getParticipants().size() == 2);
    long old = followerClient.sessionId();
    server.expireSession(old);
    await().atMost(Clients.WAIT).until(() -> followerClient.sessionId() != old && leader.getParticipants().size() == 2);
    assertTrue(leader.hasLeadership());
    leader.close();
    assertTrue(follower.await(30, TimeUnit.SECONDS));
  }

  @Test
  void aClosedLatchLeavesNoWatchBehind() throws Exception {
    LeaderLatch leader = latch(clients.connect(), "leader");
    leader.start();
    assertTrue(leader.await(30, TimeUnit.SECONDS));
    WatchTrackingClient tracking = new WatchTrackingClient(clients.connect());
    LeaderLatch follower = latch(tracking.client(), "follower");
    follower.start();
    await().atMost(Clients.WAIT).until(() -> !tracking.outstanding().isEmpty());
    follower.close();
    assertEquals(Set.of(), tracking.outstanding(), "watches left by the closed follower");
    LeaderLatch second = latch(tracking.client(), "leader-to-be");
    second.start();
    await().atMost(Clients.WAIT).until(() -> !tracking.outstanding().isEmpty());
    leader.close();
    assertTrue(second.await(30, TimeUnit.SECONDS));
    second.close();
    assertEquals(Set.of(), tracking.outstanding(), "watches left by the closed leader");
  }

  @Test
  void aClosedWaitingSelectorLeavesNoWatchBehind() throws Exception {
    CountDownLatch leading = new CountDownLatch(1);
    LeaderSelector leader = selector(clients.connect(), "leader", client -> {
      leading.countDown();
      new CountDownLatch(1).await();
    });
    leader.start();
    assertTrue(leading.await(30, TimeUnit.SECONDS));
    WatchTrackingClient tracking = new WatchTrackingClient(clients.connect());
    LeaderSelector waiting = selector(tracking.client(), "waiting", client -> { });
    waiting.start();
    await().atMost(Clients.WAIT).until(() -> !tracking.outstanding().isEmpty());
    waiting.close();
    assertEquals(Set.of(), tracking.outstanding(), "watches left by the closed selector");
  }

  @Test
  void aWaitingSelectorThatSwitchesWatchesLeavesNoWatchBehind() throws Exception {
    String stranger = clients.createStranger(PATH + "/other-", CreateMode.PERSISTENT_SEQUENTIAL);
    // a participant that stays first: a node of the selectors' queue, held by another session
    clients.createStranger(PATH + "/lock-", CreateMode.EPHEMERAL_SEQUENTIAL);
    WatchTrackingClient tracking = new WatchTrackingClient(clients.connect());
    LeaderSelector waiting = selector(tracking.client(), "waiting", client -> { });
    waiting.start();
    // behind a node that is no participant: it watches its predecessor
    await().atMost(Clients.WAIT).until(() -> !tracking.outstanding().isEmpty());
    Set<String> onPredecessor = tracking.outstanding();
    clients.connect().delete(stranger, -1);
    server.restart(); // the reconnect wakes the waiter, which now leaves a FIRST watch on its own node instead
    await().atMost(Clients.WAIT).until(() -> !tracking.outstanding().isEmpty()
        && !tracking.outstanding().equals(onPredecessor));

    waiting.close();

    assertEquals(Set.of(), tracking.outstanding(), "watches left by the closed selector");
  }

  @Test
  void aSelectorClosesEvenWhenDeletingItsNodeFailsUnexpectedly() throws Exception {
    CoordinationClient real = clients.connect();
    CoordinationClient failingDeletes = (CoordinationClient) Proxy.newProxyInstance(
        CoordinationClient.class.getClassLoader(), new Class<?>[] {CoordinationClient.class}, (self, method, args) -> {
          if (method.getName().equals("delete")) {
            throw new IllegalStateException("a client bug");
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    CountDownLatch led = new CountDownLatch(1);
    LeaderSelector selector = selector(failingDeletes, "unlucky", client -> led.countDown());
    selector.start();
    assertTrue(led.await(30, TimeUnit.SECONDS));
    assertTimeoutPreemptively(Duration.ofSeconds(30), selector::close);
  }

  @Test
  void aSelectorWithAutoRequeueLeadsAgainAndAgainAlone() throws Exception {
    AtomicInteger turns = new AtomicInteger();
    LeaderSelector selector = selector(clients.connect(), "solo", client -> turns.incrementAndGet());
    selector.autoRequeue();
    selector.start();
    await().atMost(Clients.WAIT).until(() -> turns.get() >= 5);
  }

  @Test
  void aSelectorWhoseTakeLeadershipThrowsLeadsAgainWithAutoRequeueAndLetsOthersLead() throws Exception {
    AtomicInteger turns = new AtomicInteger();
    LeaderSelector failing = selector(clients.connect(), "failing", client -> {
      turns.incrementAndGet();
      throw new IllegalStateException("leadership code failed");
    });
    failing.autoRequeue();
    failing.start();
    await().atMost(Clients.WAIT).until(() -> turns.get() >= 2);
    CountDownLatch otherLed = new CountDownLatch(1);
    LeaderSelector other = selector(clients.connect(), "other", client -> otherLed.countDown());
    other.start();
    assertTrue(otherLed.await(30, TimeUnit.SECONDS));
  }

  @Test
  void theLeadingSelectorIsTheLeaderItsPeersSee() throws Exception {
    CountDownLatch leading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    LeaderSelector leader = selector(clients.connect(), "leader", client -> {
      leading.countDown();
      release.await();
    });
    leader.start();
    assertTrue(leading.await(30, TimeUnit.SECONDS));
    LeaderSelector peer = selector(clients.connect(), "peer", client -> { });
    assertTrue(leader.hasLeadership());
    assertEquals(new Participant("leader", true), peer.getLeader());
    release.countDown();
    await().atMost(Clients.WAIT).until(() -> !leader.hasLeadership());
    assertEquals("", peer.getLeader().id());
  }

  @Test
  void closingASelectorFromItsOwnTakeLeadershipEndsTheTurn() throws Exception {
    CoordinationClient client = clients.connect();
    AtomicInteger turns = new AtomicInteger();
    LeaderSelector[] self = new LeaderSelector[1];
    self[0] = selector(client, "self", c -> {
      turns.incrementAndGet();
      self[0].close();
    });
    self[0].autoRequeue();
    self[0].start();
    await().atMost(Clients.WAIT).until(() -> turns.get() == 1 && !self[0].hasLeadership()
        && self[0].getParticipants().isEmpty());
  }
}
