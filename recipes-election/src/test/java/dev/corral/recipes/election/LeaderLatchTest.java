package dev.corral.recipes.election;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.SequentialNames;
import dev.corral.client.grpc.CorralClient;
import dev.corral.client.grpc.RetryPolicy;
import dev.corral.testing.TestingServer;
import java.io.EOFException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LeaderLatchTest {
  private static final String PATH = "/election/latch";

  private TestingServer server;
  private Clients clients;
  private final List<LeaderLatch> latches = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startServer() {
    server = new TestingServer();
    clients = new Clients(server);
  }

  @AfterEach
  void closeEverything() {
    try {
      latches.forEach(LeaderLatch::close);
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
  }

  private LeaderLatch latch(CoordinationClient client, String id) {
    LeaderLatch latch = new LeaderLatch(client, PATH, id);
    latches.add(latch);
    return latch;
  }

  private List<LeaderLatch> startLatches(int count) throws InterruptedException {
    List<LeaderLatch> started = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      LeaderLatch latch = latch(clients.connect(), "p" + i);
      latch.start();
      started.add(latch);
    }
    return started;
  }

  private static LeaderLatch awaitSingleLeader(List<LeaderLatch> candidates) {
    await().atMost(Clients.WAIT).until(() -> candidates.stream().filter(LeaderLatch::hasLeadership).count() == 1);
    return candidates.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
  }

  @Test
  void stateAndOurPathFollowTheLatchThroughItsLifecycle() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch latch = new LeaderLatch(client, PATH);
    assertEquals(LeaderLatch.State.LATENT, latch.getState());
    assertEquals(java.util.Optional.empty(), latch.getOurPath());
    assertNull(latch.getLastPathIsLeader(), "never led");
    assertEquals("", latch.getId(), "Curator's two-argument constructor: an empty id");

    latch.start();
    assertEquals(LeaderLatch.State.STARTED, latch.getState());
    assertTrue(latch.await(30, java.util.concurrent.TimeUnit.SECONDS));
    await().atMost(Clients.WAIT).until(() -> latch.getOurPath().isPresent());
    String ourPath = latch.getOurPath().orElseThrow();
    assertTrue(ourPath.startsWith(PATH + "/"), ourPath);
    assertEquals(client.sessionId(), client.exists(ourPath).orElseThrow().ephemeralOwner());

    assertEquals(ourPath, latch.getLastPathIsLeader());

    latch.close();
    assertEquals(LeaderLatch.State.CLOSED, latch.getState());
    assertEquals(java.util.Optional.empty(), latch.getOurPath());
    assertEquals(ourPath, latch.getLastPathIsLeader(), "kept after leadership ends");
    await().atMost(Clients.WAIT).until(() -> client.exists(ourPath).isEmpty()); // its node went with it
  }

  /** As Curator's reset(), which records the node before checking leadership. */
  @Test
  void ourPathIsKnownWhenTheListenerHearsItLeads() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch latch = latch(client, "only");
    List<Optional<String>> heard = new CopyOnWriteArrayList<>();
    latch.addListener(onLeading(() -> heard.add(latch.getOurPath())));
    latch.start();
    latch.await();

    assertEquals(List.of(Optional.of(onlyNode(client))), heard, "getOurPath() inside isLeader()");
  }

  @Test
  void ourPathIsKnownWhenAwaitReturns() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch latch = latch(client, "only");
    latch.start();
    latch.await();
    Optional<String> ourPath = latch.getOurPath();

    assertEquals(Optional.of(onlyNode(client)), ourPath);
  }

  @Test
  void ourPathNamesTheNewNodeAfterTheSessionExpires() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch latch = latch(client, "only");
    List<String> heard = new CopyOnWriteArrayList<>();
    latch.addListener(onLeading(() -> heard.add(latch.getOurPath().orElse("<none>"))));
    latch.start();
    latch.await();
    String oldNode = onlyNode(client);
    long oldSession = client.sessionId();

    server.expireSession(oldSession);

    await().atMost(Clients.WAIT).until(() -> heard.size() == 2);
    assertNotEquals(oldSession, client.sessionId());
    String newNode = onlyNode(client);
    assertEquals(client.sessionId(), client.exists(newNode).orElseThrow().ephemeralOwner());
    assertEquals(List.of(oldNode, newNode), heard, "getOurPath() inside isLeader(), before and after the expiry");
    assertEquals(Optional.of(newNode), latch.getOurPath());
  }

  /** The path of the one node in the election, checked to be the only one. */
  private static String onlyNode(CoordinationClient client) throws CoordinationException, InterruptedException {
    List<String> children = client.getChildren(PATH);
    assertEquals(1, children.size(), "nodes in the election: " + children);
    return PATH + "/" + children.get(0);
  }

  private static LeaderLatchListener onLeading(Runnable action) {
    return new LeaderLatchListener() {
      @Override
      public void isLeader() {
        action.run();
      }

      @Override
      public void notLeader() {}
    };
  }

  @Test
  void neverMoreThanOneOfFiveLatchesLeadsWhileLeadershipMoves() throws Exception {
    List<LeaderLatch> live = new CopyOnWriteArrayList<>(startLatches(5));
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicInteger samples = new AtomicInteger();
    AtomicInteger worst = new AtomicInteger();
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        int leaders = (int) live.stream().filter(LeaderLatch::hasLeadership).count();
        worst.accumulateAndGet(leaders, Math::max);
        samples.incrementAndGet();
      }
    });
    sampler.start();
    try {
      for (int moves = 0; moves < 4; moves++) {
        LeaderLatch leader = awaitSingleLeader(live);
        live.remove(leader);
        leader.close();
      }
      LeaderLatch last = awaitSingleLeader(live);
      assertEquals(1, live.size());
      assertTrue(last.hasLeadership());
    } finally {
      sampling.set(false);
      sampler.join();
    }
    assertTrue(samples.get() > 100, "the sampler ran " + samples.get() + " times");
    assertEquals(1, worst.get(), "most leaders seen at one sample");
  }

  @Test
  void anotherLatchLeadsWhenTheLeaderCloses() throws Exception {
    List<LeaderLatch> all = startLatches(3);
    LeaderLatch leader = awaitSingleLeader(all);
    List<LeaderLatch> others = new ArrayList<>(all);
    others.remove(leader);

    leader.close();

    assertFalse(leader.hasLeadership());
    LeaderLatch next = awaitSingleLeader(others);
    assertEquals(next.getId(), next.getLeader().id());
    assertEquals(2, next.getParticipants().size());
  }

  @Test
  void aFollowerLeadsOnTheEventOfItsTurnWithoutReadingTheQueueAgain() throws Exception {
    LeaderLatch leader = latch(clients.connect(), "leader");
    leader.start();
    assertTrue(leader.await(30, TimeUnit.SECONDS));
    CountingClient counting = new CountingClient(clients.connect());
    LeaderLatch follower = latch(counting.client(), "follower");
    follower.start();
    await().atMost(Clients.WAIT).until(() -> counting.watches.get() == 1);
    int before = counting.multis.get();

    leader.close();

    assertTrue(follower.await(30, TimeUnit.SECONDS));
    assertEquals(before, counting.multis.get(), "the follower read the queue again before leading");
  }

  @Test
  void aLatchBehindASequentialNodeThatIsNoContenderLeadsWhenTheLatchesBeforeItClose() throws Exception {
    clients.createStranger(PATH + "/other-", CreateMode.EPHEMERAL_SEQUENTIAL);
    LeaderLatch first = latch(clients.connect(), "first");
    first.start();
    assertTrue(first.await(30, TimeUnit.SECONDS), "a node of another kind is not in the latches' queue");
    LeaderLatch second = latch(clients.connect(), "second");
    second.start();
    await().atMost(Clients.WAIT).until(() -> first.getParticipants().size() == 2);

    first.close();

    // the other node, with a lower counter, is still there: a FIRST watch would wait for it too
    assertTrue(second.await(30, TimeUnit.SECONDS));
  }

  @Test
  void aLatchWaitingForItsTurnLooksAgainWhenANodeNamedByHandStandsInFront() throws Exception {
    LeaderLatch first = latch(clients.connect(), "first");
    first.start();
    assertTrue(first.await(30, TimeUnit.SECONDS));
    LeaderLatch second = latch(clients.connect(), "second");
    second.recheckTurnEvery(Duration.ofMillis(200));
    second.start();
    await().atMost(Clients.WAIT).until(() -> first.getParticipants().size() == 2);
    // after the second latch listed the queue: a lower counter than any, which its FIRST watch waits for
    clients.createStranger(PATH + "/other-0000000000", CreateMode.PERSISTENT);

    first.close();

    assertTrue(second.await(30, TimeUnit.SECONDS));
  }

  @Test
  void whenTheLeadersSessionExpiresAnotherLeadsAndTheOldOneHearsNotLeaderThenRejoins() throws Exception {
    CoordinationClient firstClient = clients.connect();
    LeaderLatch first = latch(firstClient, "first");
    EventLog firstEvents = new EventLog();
    first.addListener(firstEvents.latchListener());
    first.start();
    first.await();
    long oldSession = firstClient.sessionId();
    List<LeaderLatch> others = startLatches(2);

    server.expireSession(oldSession);

    LeaderLatch next = awaitSingleLeader(others);
    firstEvents.awaitEvents("isLeader", "notLeader");
    // the old leader joins again, with a node of its new session, at the end of the queue
    await().atMost(Clients.WAIT).until(() -> firstClient.sessionId() != oldSession
        && next.getParticipants().stream().map(Participant::id).toList().equals(List.of(next.getId(), otherThan(others, next).getId(), "first")));
    assertFalse(first.hasLeadership());
    assertEquals(List.of("isLeader", "notLeader"), firstEvents.events());
  }

  private static LeaderLatch otherThan(List<LeaderLatch> pair, LeaderLatch one) {
    return pair.get(0) == one ? pair.get(1) : pair.get(0);
  }

  @Test
  void suspensionGivesUpLeadershipAndTheFirstNodeLeadsAgainAfterReconnecting() throws Exception {
    LeaderLatch first = latch(clients.connect(), "first");
    EventLog firstEvents = new EventLog();
    first.addListener(firstEvents.latchListener());
    first.start();
    first.await();
    long token = first.fencingToken();
    LeaderLatch second = latch(clients.connect(), "second");
    EventLog secondEvents = new EventLog();
    second.addListener(secondEvents.latchListener());
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);

    server.stop();
    firstEvents.awaitEvents("isLeader", "notLeader");
    assertFalse(first.hasLeadership());

    server.start();
    firstEvents.awaitEvents("isLeader", "notLeader", "isLeader");
    assertTrue(first.hasLeadership());
    assertEquals(token, first.fencingToken(), "same node, same term");
    assertFalse(second.hasLeadership());
    assertEquals(List.of(), secondEvents.events());
  }

  @Test
  void aLeaderGivesUpAtSuspensionWhileItsOwnThreadWaitsInACall() throws Exception {
    CoordinationClient real = clients.connect();
    CountDownLatch inCall = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    AtomicBoolean holding = new AtomicBoolean();
    CoordinationClient stalling = (CoordinationClient) Proxy.newProxyInstance(
        CoordinationClient.class.getClassLoader(), new Class<?>[] {CoordinationClient.class}, (self, method, args) -> {
          if (holding.get() && SERVER_CALLS.contains(method.getName())) { // the call's answer does not come
            inCall.countDown();
            answer.await(60, TimeUnit.SECONDS);
          }
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
    LeaderLatch latch = latch(stalling, "stalled");
    EventLog events = new EventLog();
    latch.addListener(events.latchListener());
    latch.start();
    latch.await();

    holding.set(true);
    clients.connect().setData(latch.getOurPath().orElseThrow(), new byte[1], -1); // the latch looks again
    assertTrue(inCall.await(30, TimeUnit.SECONDS), "the latch's thread made no call");
    server.stop();
    try {
      events.awaitEvents("isLeader", "notLeader"); // at SUSPENDED, not once the call fails at LOST
      assertFalse(latch.hasLeadership());
    } finally {
      answer.countDown();
      server.start();
    }
  }

  @Test
  void aLeaderWhoseListenerIsInACallWhenTheConnectionGoesHearsNotLeaderOnceItReturns() throws Exception {
    CoordinationClient impatient = CorralClient.builder()
        .connectString(server.getConnectString()).sessionTimeout(Duration.ofSeconds(20))
        .connectionTimeout(Duration.ofSeconds(1)).retryPolicy(RetryPolicy.none()).build();
    try {
      LeaderLatch latch = latch(impatient, "calling");
      CountDownLatch leading = new CountDownLatch(1);
      CountDownLatch serverDown = new CountDownLatch(1);
      EventLog events = new EventLog();
      latch.addListener(new LeaderLatchListener() { // no executor: told holding the latch's leadership lock
        @Override
        public void isLeader() {
          events.add("isLeader");
          leading.countDown();
          try {
            serverDown.await(30, TimeUnit.SECONDS);
            impatient.getData(PATH); // no answer: the connection is gone
          } catch (Exception expected) {
            events.add("call failed");
          }
        }

        @Override
        public void notLeader() {
          events.add("notLeader");
        }
      });
      latch.start();
      assertTrue(leading.await(30, TimeUnit.SECONDS));
      server.stop();
      serverDown.countDown();
      try {
        events.awaitEvents("isLeader", "call failed", "notLeader");
        assertFalse(latch.hasLeadership());
      } finally {
        server.start();
      }
    } finally {
      impatient.close();
    }
  }

  private static final Set<String> SERVER_CALLS =
      Set.of("exists", "getChildren", "getData", "multi", "create", "delete", "addWatch", "sync");

  @Test
  void aLeaderClosedWhileDisconnectedDeletesItsNodeOnceReconnected() throws Exception {
    LeaderLatch first = latch(clients.connect(), "first");
    first.start();
    first.await();
    LeaderLatch second = latch(clients.connect(), "second");
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);

    server.stop();
    first.close();
    server.start();

    second.await();
    assertEquals(List.of(new Participant("second", true)), List.copyOf(second.getParticipants()));
  }

  @Test
  void aLeaderWhoseNodeIsDeletedGivesUpLeadershipAndJoinsAgainAtTheEnd() throws Exception {
    CoordinationClient observer = clients.connect();
    LeaderLatch first = latch(clients.connect(), "first");
    EventLog firstEvents = new EventLog();
    first.addListener(firstEvents.latchListener());
    first.start();
    first.await();
    LeaderLatch second = latch(clients.connect(), "second");
    second.start();
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().size() == 2);
    String leaderNode = SequentialNames.sorted(observer.getChildren(PATH)).get(0);

    observer.delete(PATH + "/" + leaderNode);

    second.await();
    firstEvents.awaitEvents("isLeader", "notLeader");
    await().atMost(Clients.WAIT).until(() -> second.getParticipants().stream().map(Participant::id).toList()
        .equals(List.of("second", "first")));
    assertFalse(first.hasLeadership());
  }

  @Test
  void aLoneLeaderWhoseNodeIsDeletedWithItsContainerJoinsAgainAndLeads() throws Exception {
    CoordinationClient observer = clients.connect();
    LeaderLatch only = latch(clients.connect(), "only");
    EventLog events = new EventLog();
    only.addListener(events.latchListener());
    only.start();
    only.await();
    String node = observer.getChildren(PATH).get(0);

    observer.delete(PATH + "/" + node); // the last child: its container parent goes with it

    events.awaitEvents("isLeader", "notLeader", "isLeader");
    assertTrue(only.hasLeadership());
    assertNotEquals(List.of(node), observer.getChildren(PATH));
  }

  @Test
  void fencingTokensIncreaseFromLeaderToLeader() throws Exception {
    List<LeaderLatch> live = new ArrayList<>(startLatches(4));
    List<Long> tokens = new ArrayList<>();
    while (!live.isEmpty()) {
      LeaderLatch leader = awaitSingleLeader(live);
      tokens.add(leader.fencingToken());
      live.remove(leader);
      leader.close();
    }
    for (int i = 1; i < tokens.size(); i++) {
      assertTrue(tokens.get(i) > tokens.get(i - 1), "tokens " + tokens);
    }
  }

  @Test
  void fencingTokenAfterASessionExpiryIsLargerThanTheExpiredLeaders() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch only = latch(client, "only");
    only.start();
    only.await();
    long before = only.fencingToken();

    server.expireSession(client.sessionId());

    await().atMost(Clients.WAIT).until(() -> only.hasLeadership() && only.fencingToken() != before);
    assertTrue(only.fencingToken() > before);
    assertEquals(List.of("only"), only.getParticipants().stream().map(Participant::id).toList());
  }

  @Test
  void fencingTokenIsRefusedToANonLeader() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "x");
    assertThrows(IllegalStateException.class, latch::fencingToken);
  }

  @Test
  void participantsAreListedInQueueOrderWithTheLeaderFirst() throws Exception {
    List<LeaderLatch> all = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      LeaderLatch latch = latch(clients.connect(), id);
      latch.start();
      all.add(latch);
      await().atMost(Clients.WAIT).until(() -> latch.getParticipants().stream().anyMatch(p -> p.id().equals(id)));
    }
    Collection<Participant> participants = all.get(2).getParticipants();
    assertEquals(List.of(new Participant("a", true), new Participant("b", false), new Participant("c", false)),
        List.copyOf(participants));
    assertEquals(new Participant("a", true), all.get(1).getLeader());
  }

  @Test
  void leaderOfAnEmptyElectionIsTheEmptyParticipant() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "x");
    assertEquals(new Participant("", false), latch.getLeader());
    assertEquals(List.of(), List.copyOf(latch.getParticipants()));
  }

  @Test
  void timedAwaitOfAFollowerReturnsFalse() throws Exception {
    List<LeaderLatch> all = startLatches(2);
    LeaderLatch leader = awaitSingleLeader(all);
    LeaderLatch follower = otherThan(all, leader);
    assertFalse(follower.await(100, TimeUnit.MILLISECONDS));
    assertTrue(leader.await(100, TimeUnit.MILLISECONDS));
  }

  @Test
  void closingAFollowerReleasesItsAwaiter() throws Exception {
    List<LeaderLatch> all = startLatches(2);
    LeaderLatch follower = otherThan(all, awaitSingleLeader(all));
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    Thread awaiter = new Thread(() -> {
      try {
        follower.await();
        outcome.set(new AssertionError("await returned without leadership"));
      } catch (Throwable t) {
        outcome.set(t);
      }
    });
    awaiter.start();
    await().atMost(Clients.WAIT).until(() -> awaiter.getState() == Thread.State.WAITING);

    follower.close();
    awaiter.join();

    assertInstanceOf(EOFException.class, outcome.get(), "as Curator's await on a closed latch");
    assertFalse(follower.await(1, TimeUnit.MILLISECONDS));
  }

  @Test
  void awaitOnALatchNeverStartedOrClosedThrowsEOFExceptionAsCurator() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "x");
    EOFException notStarted = assertThrows(EOFException.class, latch::await);
    assertEquals("the latch is not started", notStarted.getMessage());

    latch.start();
    latch.await();
    latch.close();

    EOFException closed = assertThrows(EOFException.class, latch::await);
    assertEquals("the latch was closed", closed.getMessage());
  }

  @Test
  void closeModeDecidesWhetherListenersHearNotLeader() throws Exception {
    LeaderLatch silent = latch(clients.connect(), "silent");
    EventLog silentEvents = new EventLog();
    silent.addListener(silentEvents.latchListener());
    silent.start();
    silentEvents.awaitEvents("isLeader");
    LeaderLatch loud = latch(clients.connect(), "loud");
    EventLog loudEvents = new EventLog();
    loud.addListener(loudEvents.latchListener(), Runnable::run);
    loud.start();

    silent.close();
    loudEvents.awaitEvents("isLeader");
    loud.close(LeaderLatch.CloseMode.NOTIFY_LEADER);

    loudEvents.awaitEvents("isLeader", "notLeader");
    assertEquals(List.of("isLeader"), silentEvents.events());
    assertFalse(loud.hasLeadership());
  }

  @Test
  void everyListenerHearsIsLeaderThenNotLeaderWhenTheFirstClosesTheLatchAsItIsTold() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "closing");
    EventLog closer = new EventLog();
    EventLog other = new EventLog();
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        closer.add("isLeader");
        latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
      }

      @Override
      public void notLeader() {
        closer.add("notLeader");
      }
    });
    latch.addListener(other.latchListener());
    latch.start();

    closer.awaitEvents("isLeader", "notLeader");
    other.awaitEvents("isLeader", "notLeader");
    assertFalse(latch.hasLeadership());
  }

  /** Curator's contract: await() and close(NOTIFY_LEADER) return after listeners added without an executor heard. */
  @Test
  void awaitAndANotifyingCloseReturnOnlyOnceTheListenerHasHeard() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "slow");
    List<String> heard = new CopyOnWriteArrayList<>();
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        pause();
        heard.add("isLeader");
      }

      @Override
      public void notLeader() {
        pause();
        heard.add("notLeader");
      }

      private void pause() {
        try {
          Thread.sleep(300);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    latch.start();
    latch.await();
    assertEquals(List.of("isLeader"), heard);
    latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
    assertEquals(List.of("isLeader", "notLeader"), heard);
  }

  @Test
  void aListenerAddedTwiceIsToldOnce() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "twice");
    AtomicInteger toldOnExecutor = new AtomicInteger();
    EventLog events = new EventLog();
    LeaderLatchListener listener = events.latchListener();
    latch.addListener(listener);
    latch.addListener(listener, task -> {
      toldOnExecutor.incrementAndGet();
      task.run();
    });
    latch.start();
    latch.await();
    latch.close(LeaderLatch.CloseMode.NOTIFY_LEADER);
    assertEquals(List.of("isLeader", "notLeader"), events.events(), "told once each");
    assertEquals(2, toldOnExecutor.get(), "both on the second registration's executor, which replaced the first");
  }

  @Test
  void startingTwiceFails() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "x");
    latch.start();
    IllegalStateException e = assertThrows(IllegalStateException.class, latch::start);
    assertTrue(e.getMessage().contains("already started"), e.getMessage());
  }

  @Test
  void startingAfterCloseFails() throws Exception {
    LeaderLatch latch = latch(clients.connect(), "x");
    latch.start();
    latch.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, latch::start);
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
  }

  @Test
  void closingTwiceOrWithoutStartingIsHarmless() throws Exception {
    CoordinationClient client = clients.connect();
    LeaderLatch neverStarted = latch(client, "never");
    assertDoesNotThrow(() -> neverStarted.close());
    LeaderLatch latch = latch(client, "twice");
    latch.start();
    latch.await();
    latch.close();
    assertDoesNotThrow(() -> latch.close());
    assertEquals(List.of(), List.copyOf(latch.getParticipants()));
  }

  @Test
  void aLatchPathMustBeValid() throws Exception {
    CoordinationClient client = clients.connect();
    assertThrows(IllegalArgumentException.class, () -> new LeaderLatch(client, "no-slash", "x"));
  }
}
