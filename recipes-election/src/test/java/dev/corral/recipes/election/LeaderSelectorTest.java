package dev.corral.recipes.election;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CreateMode;
import dev.corral.testing.TestingServer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LeaderSelectorTest {
  private static final String PATH = "/election/selector";

  private TestingServer server;
  private Clients clients;
  private final List<LeaderSelector> selectors = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startServer() {
    server = new TestingServer();
    clients = new Clients(server);
  }

  @AfterEach
  void closeEverything() {
    try {
      selectors.forEach(LeaderSelector::close);
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
  }

  private LeaderSelector selector(CoordinationClient client, String id, LeaderSelectorListener listener) {
    LeaderSelector selector = new LeaderSelector(client, PATH, listener);
    selector.setId(id);
    selectors.add(selector);
    return selector;
  }

  /** Leads until interrupted, recording "leading" and "interrupted". */
  private static LeaderSelectorListener leadUntilInterrupted(EventLog log) {
    return client -> {
      log.add("leading");
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        log.add("interrupted");
        throw e;
      }
    };
  }

  @Test
  void autoRequeueRotatesLeadershipAmongParticipantsNeverTwoAtOnce() throws Exception {
    int participants = 3;
    int turns = 4 * participants;
    AtomicInteger leadingNow = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger turnsTaken = new AtomicInteger();
    Map<String, AtomicInteger> turnsById = new ConcurrentHashMap<>();
    for (int i = 0; i < participants; i++) {
      String id = "p" + i;
      turnsById.put(id, new AtomicInteger());
      CoordinationClient client = clients.connect();
      LeaderSelector selector = selector(client, id, c -> {
        mostAtOnce.accumulateAndGet(leadingNow.incrementAndGet(), Math::max);
        try {
          // lead long enough for the others to be queued behind, by a real round trip
          c.exists(PATH);
          turnsById.get(id).incrementAndGet();
          turnsTaken.incrementAndGet();
        } finally {
          leadingNow.decrementAndGet();
        }
      });
      selector.autoRequeue();
    }
    selectors.forEach(LeaderSelector::start);

    await().atMost(Clients.WAIT).until(() -> turnsTaken.get() >= turns);
    selectors.forEach(LeaderSelector::close);

    assertEquals(1, mostAtOnce.get(), "most participants leading at once");
    turnsById.forEach((id, count) -> assertTrue(count.get() >= 2, id + " led " + count + " times: " + turnsById));
  }

  /** Starts a selector "first" that leads, logging "first leads", until {@code release} counts down. */
  private void leadUntil(CountDownLatch release, EventLog log) throws InterruptedException {
    LeaderSelector first = selector(clients.connect(), "first", c -> {
      log.add("first leads");
      release.await();
    });
    first.start();
    log.awaitEvents("first leads");
  }

  @Test
  void aWaitingParticipantLeadsOnTheEventOfItsTurnWithoutReadingTheQueueAgain() throws Exception {
    EventLog log = new EventLog();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    leadUntil(releaseFirst, log);
    CountingClient counting = new CountingClient(clients.connect());
    LeaderSelector second = selector(counting.client(), "second", c -> log.add("second leads"));
    second.start();
    await().atMost(Clients.WAIT).until(() -> counting.watches.get() == 1);
    int before = counting.multis.get();

    releaseFirst.countDown();

    log.awaitEvents("first leads", "second leads");
    assertEquals(before, counting.multis.get(), "the waiter read the queue again before leading");
  }

  @Test
  void aParticipantBehindASequentialNodeThatIsNoParticipantLeadsWhenThoseBeforeItAreDone() throws Exception {
    clients.createStranger(PATH + "/other-", CreateMode.EPHEMERAL_SEQUENTIAL);
    EventLog log = new EventLog();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    leadUntil(releaseFirst, log);
    LeaderSelector second = selector(clients.connect(), "second", c -> log.add("second leads"));
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);

    releaseFirst.countDown();

    // the other node, with a lower counter, is still there: a FIRST watch would wait for it too
    log.awaitEvents("first leads", "second leads");
  }

  @Test
  void aParticipantWaitingForItsTurnLooksAgainWhenANodeNamedByHandStandsInFront() throws Exception {
    EventLog log = new EventLog();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    leadUntil(releaseFirst, log);
    LeaderSelector second = selector(clients.connect(), "second", c -> log.add("second leads"));
    second.recheckTurnEvery(Duration.ofMillis(200));
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);
    // after the second listed the queue: a lower counter than any, which its FIRST watch waits for
    clients.createStranger(PATH + "/other-0000000000", CreateMode.PERSISTENT);

    releaseFirst.countDown();

    log.awaitEvents("first leads", "second leads");
  }

  @Test
  void returningFromTakeLeadershipLetsTheNextParticipantLead() throws Exception {
    EventLog log = new EventLog();
    CountDownLatch releaseFirst = new CountDownLatch(1);
    LeaderSelector first = selector(clients.connect(), "first", c -> {
      log.add("first leads");
      releaseFirst.await();
      log.add("first returns");
    });
    first.start();
    log.awaitEvents("first leads");
    LeaderSelector second = selector(clients.connect(), "second", c -> log.add("second leads"));
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);
    assertEquals(new Participant("first", true), second.getLeader());
    assertTrue(first.hasLeadership());

    releaseFirst.countDown();

    log.awaitEvents("first leads", "first returns", "second leads");
    await().atMost(Clients.WAIT).until(() -> first.getParticipants().isEmpty());
    assertFalse(first.hasLeadership());
  }

  @Test
  void aTakeLeadershipThatThrowsAnErrorIsRequeuedByAutoRequeue() throws Exception {
    assertLeadsAgainAfterAFirstTurnThrowing(new AssertionError("a failed check in the leader's work"));
  }

  @Test
  void aTakeLeadershipThatThrowsACheckedExceptionEndsOnlyItsTurn() throws Exception {
    // Curator's takeLeadership throws Exception
    assertLeadsAgainAfterAFirstTurnThrowing(new IOException("the leader's own work failed"));
  }

  /** An auto-requeued selector whose first turn throws {@code thrown} leads again, and goes on leading. */
  private void assertLeadsAgainAfterAFirstTurnThrowing(Throwable thrown) throws Exception {
    EventLog log = new EventLog();
    AtomicInteger turns = new AtomicInteger();
    LeaderSelector selector = selector(clients.connect(), "x", c -> {
      log.add("leading");
      if (turns.incrementAndGet() == 1) {
        if (thrown instanceof Exception e) {
          throw e;
        }
        throw (Error) thrown;
      }
      new CountDownLatch(1).await(); // leads until closed
    });
    selector.autoRequeue();
    selector.start();

    log.awaitEvents("leading", "leading");
    assertTrue(selector.hasLeadership());
  }

  @Test
  void aWaitingTurnWhoseSessionEndsIsOverAsInCurator() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector leader = selector(clients.connect(), "leader", leadUntilInterrupted(log));
    leader.start();
    log.awaitEvents("leading");
    CoordinationClient waiterClient = clients.connect();
    LeaderSelector waiter = selector(waiterClient, "waiter", c -> log.add("waiter leads"));
    waiter.start();
    await().atMost(Clients.WAIT).until(() -> leader.getParticipants().size() == 2);

    server.expireSession(waiterClient.sessionId());

    await().atMost(Clients.WAIT).until(waiter::requeue); // true only once the turn is over: not queued any more
    await().atMost(Clients.WAIT).until(() -> leader.getParticipants().size() == 2);
    assertTrue(leader.hasLeadership());
    assertEquals(List.of("leading"), log.events());
  }

  @Test
  void requeueQueuesAgainOnlyWhenNotQueued() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", leadUntilInterrupted(log));
    assertThrows(IllegalStateException.class, selector::requeue);
    selector.start();
    log.awaitEvents("leading");
    assertFalse(selector.requeue(), "already leading");

    selector.interruptLeadership();
    log.awaitEvents("leading", "interrupted");
    await().atMost(Clients.WAIT).until(() -> !selector.hasLeadership());
    await().atMost(Clients.WAIT).until(selector::requeue);

    log.awaitEvents("leading", "interrupted", "leading");
  }

  @Test
  void requeueOnceTakeLeadershipReturnedQueuesForWhenTheTurnHasEnded() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", leadUntilInterrupted(log));
    selector.start();
    log.awaitEvents("leading");

    server.stop(); // the leader is interrupted; its node is deleted only once the connection is back
    log.awaitEvents("leading", "interrupted");
    await().atMost(Clients.WAIT).until(() -> !selector.hasLeadership());
    assertTrue(selector.requeue(), "as in Curator (CURATOR-671): leadership is over, so it is not queued");
    assertFalse(selector.requeue(), "queued now");

    server.start();
    log.awaitEvents("leading", "interrupted", "leading");
  }

  @Test
  void interruptLeadershipInterruptsTheLeader() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", leadUntilInterrupted(log));
    selector.start();
    log.awaitEvents("leading");
    assertTrue(selector.hasLeadership());

    selector.interruptLeadership();

    log.awaitEvents("leading", "interrupted");
    await().atMost(Clients.WAIT).until(() -> selector.getParticipants().isEmpty());
    assertFalse(selector.hasLeadership());
  }

  @Test
  void suspensionInterruptsTheLeaderWhichLeadsAgainAfterReconnectingWithAutoRequeue() throws Exception {
    EventLog log = new EventLog();
    EventLog states = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", new LeaderSelectorListener() {
      @Override
      public void takeLeadership(CoordinationClient client) throws Exception {
        leadUntilInterrupted(log).takeLeadership(client);
      }

      @Override
      public void stateChanged(CoordinationClient client, dev.corral.client.ConnectionState newState) {
        states.add(newState.name());
      }
    });
    selector.autoRequeue();
    selector.start();
    log.awaitEvents("leading");

    server.stop();
    log.awaitEvents("leading", "interrupted");
    assertFalse(selector.hasLeadership());

    server.start();
    log.awaitEvents("leading", "interrupted", "leading");
    assertEquals(List.of("SUSPENDED", "RECONNECTED"), states.events());
    assertEquals(List.of(new Participant("x", true)), List.copyOf(selector.getParticipants()));
  }

  @Test
  void cancelLeadershipExceptionFromTheAdapterInterruptsTheLeader() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", new LeaderSelectorListenerAdapter() {
      @Override
      public void takeLeadership(CoordinationClient client) throws Exception {
        leadUntilInterrupted(log).takeLeadership(client);
      }
    });
    selector.start();
    log.awaitEvents("leading");

    server.stop();

    log.awaitEvents("leading", "interrupted");
  }

  @Test
  void closingInterruptsTheLeaderAndDeletesItsNode() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector selector = selector(clients.connect(), "x", leadUntilInterrupted(log));
    selector.start();
    log.awaitEvents("leading");

    selector.close();

    assertEquals(List.of("leading", "interrupted"), log.events());
    assertEquals(List.of(), List.copyOf(selector.getParticipants()));
  }

  @Test
  void closingAWaitingParticipantDeletesItsNode() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector leader = selector(clients.connect(), "leader", leadUntilInterrupted(log));
    leader.start();
    log.awaitEvents("leading");
    LeaderSelector waiter = selector(clients.connect(), "waiter", c -> log.add("waiter leads"));
    waiter.start();
    await().atMost(Clients.WAIT).until(() -> leader.getParticipants().size() == 2);

    waiter.close();

    assertEquals(List.of(new Participant("leader", true)), List.copyOf(leader.getParticipants()));
    assertEquals(List.of("leading"), log.events());
  }

  @Test
  void aLeaderClosedWhileDisconnectedDeletesItsNodeOnceReconnected() throws Exception {
    EventLog log = new EventLog();
    LeaderSelector first = selector(clients.connect(), "first", leadUntilInterrupted(log));
    first.start();
    log.awaitEvents("leading");
    LeaderSelector second = selector(clients.connect(), "second", c -> {
      log.add("second leads");
      new CountDownLatch(1).await();
    });
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);

    server.stop();
    log.awaitEvents("leading", "interrupted");
    first.close();
    server.start();

    log.awaitEvents("leading", "interrupted", "second leads");
    assertEquals(List.of(new Participant("second", true)), List.copyOf(second.getParticipants()));
  }

  @Test
  void startingTwiceFailsAndClosingTwiceIsHarmless() throws Exception {
    LeaderSelector selector = selector(clients.connect(), "x", leadUntilInterrupted(new EventLog()));
    selector.start();
    IllegalStateException e = assertThrows(IllegalStateException.class, selector::start);
    assertTrue(e.getMessage().contains("already started"), e.getMessage());
    selector.close();
    assertDoesNotThrow(selector::close);
    assertThrows(IllegalStateException.class, selector::start);
    LeaderSelector neverStarted = selector(clients.connect(), "y", c -> { });
    assertDoesNotThrow(neverStarted::close);
  }
}
