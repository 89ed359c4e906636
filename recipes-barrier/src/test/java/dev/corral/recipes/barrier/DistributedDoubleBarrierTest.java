package dev.corral.recipes.barrier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;
import dev.corral.client.NoNodeException;
import dev.corral.client.SessionExpiredException;
import dev.corral.testing.TestingServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DistributedDoubleBarrierTest {
  private static final String PATH = "/barriers/double";

  private TestingServer server;
  private Clients clients;
  private CoordinationClient observer;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @BeforeEach
  void startServer() throws InterruptedException {
    server = new TestingServer();
    clients = new Clients(server);
    observer = clients.connect();
  }

  @AfterEach
  void closeEverything() throws InterruptedException {
    try {
      threads.shutdownNow();
      assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS), "member threads did not stop");
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
  }

  /** Member node names under the barrier (not "ready"). */
  private List<String> memberNodes() throws Exception {
    try {
      return observer.getChildren(PATH).stream().filter(name -> !name.equals("ready")).toList();
    } catch (NoNodeException noBarrierNode) {
      return List.of();
    }
  }

  private boolean readyExists() throws Exception {
    return observer.exists(PATH + "/ready").isPresent();
  }

  @Test
  void membersEnterTogetherAndLeaveTogether() throws Exception {
    int qty = 3;
    List<String> events = new CopyOnWriteArrayList<>();
    List<CountDownLatch> mayLeave = new ArrayList<>();
    List<Future<?>> members = new ArrayList<>();
    for (int i = 0; i < qty; i++) {
      String name = "m" + i;
      CountDownLatch leaveGate = new CountDownLatch(1);
      mayLeave.add(leaveGate);
      DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(clients.connect(), PATH, qty);
      members.add(threads.submit(() -> {
        barrier.enter();
        events.add("entered " + name);
        leaveGate.await();
        events.add("leaving " + name);
        barrier.leave();
        events.add("left " + name);
        return null;
      }));
      if (i < qty - 1) {
        int arrived = i + 1;
        await().atMost(Clients.WAIT).until(() -> memberNodes().size() == arrived);
        assertEquals(List.of(), events, "entered before " + qty + " members arrived");
      }
    }
    await().atMost(Clients.WAIT).until(() -> events.size() == qty);

    mayLeave.get(0).countDown();
    mayLeave.get(1).countDown();
    await().atMost(Clients.WAIT).until(() -> events.size() == qty + 2);
    // m0 and m1 are leaving; they wait at least for m2, whose node stays until it leaves
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() <= 2);
    assertTrue(events.stream().noneMatch(e -> e.startsWith("left")), "left before every member did: " + events);

    mayLeave.get(2).countDown();
    for (Future<?> member : members) {
      member.get(30, TimeUnit.SECONDS);
    }
    List<String> order = List.copyOf(events);
    int lastEntered = order.stream().filter(e -> e.startsWith("entered")).mapToInt(order::indexOf).max().orElseThrow();
    int firstLeft = order.stream().filter(e -> e.startsWith("left")).mapToInt(order::indexOf).min().orElseThrow();
    int lastLeaving = order.stream().filter(e -> e.startsWith("leaving")).mapToInt(order::indexOf).max().orElseThrow();
    assertTrue(lastEntered < firstLeft && lastLeaving < firstLeft, "order " + order);
    assertEquals(List.of(), memberNodes());
    assertFalse(readyExists());
  }

  @Test
  void theSameMembersCanUseTheBarrierForSeveralRounds() throws Exception {
    int qty = 2;
    List<DistributedDoubleBarrier> barriers = new ArrayList<>();
    for (int i = 0; i < qty; i++) {
      barriers.add(new DistributedDoubleBarrier(clients.connect(), PATH, qty));
    }
    for (int round = 0; round < 3; round++) {
      List<Future<?>> members = new ArrayList<>();
      for (DistributedDoubleBarrier barrier : barriers) {
        members.add(threads.submit(() -> {
          barrier.enter();
          barrier.leave();
          return null;
        }));
      }
      for (Future<?> member : members) {
        member.get(30, TimeUnit.SECONDS);
      }
    }
    assertEquals(List.of(), memberNodes());
  }

  @Test
  void aTimedOutEnterDeletesItsNode() throws Exception {
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(clients.connect(), PATH, 3);

    assertFalse(barrier.enter(200, TimeUnit.MILLISECONDS));

    assertEquals(List.of(), memberNodes());
    assertThrows(IllegalStateException.class, barrier::leave, "a timed-out member has not entered");
  }

  @Test
  void aTimedEnterEndsAtItsDeadlineWhileTheServerIsDown() throws Exception {
    CoordinationClient member = clients.connectPatient();
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(member, PATH, 2);
    server.stop();
    await().atMost(Clients.WAIT).until(() -> !member.state().isConnected());

    Started<Boolean> entering = Started.call(() -> barrier.enter(1, TimeUnit.SECONDS));

    assertFalse(entering.result());
    assertEquals(ConnectionState.SUSPENDED, member.state(), "ended at its own deadline, not once the session was lost");
  }

  @Test
  void aTimedEnterUnderWayWhenTheServerGoesEndsAtItsDeadlineAndItsNodeGoesOnceItIsBack() throws Exception {
    CoordinationClient member = clients.connectPatient();
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(member, PATH, 2);
    Started<Boolean> entering = Started.call(() -> barrier.enter(3, TimeUnit.SECONDS));
    await().atMost(Clients.WAIT).until(entering::waitsForAChange); // its node made, waiting for "ready"
    assertEquals(1, memberNodes().size());

    server.stop();

    assertFalse(entering.result());
    assertEquals(ConnectionState.SUSPENDED, member.state(), "ended at its own deadline, not once the session was lost");
    server.restart();
    await().atMost(Clients.WAIT).until(() -> memberNodes().isEmpty()); // deleted in the background: the session lives
  }

  @Test
  void aTimedLeaveEndsAtItsDeadlineWhileTheServerIsDown() throws Exception {
    CoordinationClient patient = clients.connectPatient();
    List<DistributedDoubleBarrier> members = List.of(
        new DistributedDoubleBarrier(patient, PATH, 2),
        new DistributedDoubleBarrier(clients.connect(), PATH, 2));
    List<Future<Boolean>> entering = new ArrayList<>();
    for (DistributedDoubleBarrier m : members) {
      entering.add(threads.submit(() -> m.enter(30, TimeUnit.SECONDS)));
    }
    for (Future<Boolean> e : entering) {
      assertTrue(e.get(30, TimeUnit.SECONDS));
    }
    server.stop();

    Started<Boolean> leaving = Started.call(() -> members.get(0).leave(1, TimeUnit.SECONDS));

    assertFalse(leaving.result());
    assertEquals(ConnectionState.SUSPENDED, patient.state(),
        "ended at its own deadline, not once the session was lost");
  }

  @Test
  void anInterruptedEnterDeletesItsNode() throws Exception {
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(clients.connect(), PATH, 3);
    Future<?> entering = threads.submit(() -> {
      barrier.enter();
      return null;
    });
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() == 1);

    entering.cancel(true);

    await().atMost(Clients.WAIT).until(() -> memberNodes().isEmpty());
  }

  @Test
  void aMemberWhoseSessionEndsBeforeTheGroupIsCompleteNoLongerCounts() throws Exception {
    int qty = 3;
    CoordinationClient doomedClient = clients.connect();
    Future<?> first = enterInBackground(clients.connect(), qty);
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() == 1);
    Future<?> doomed = enterInBackground(doomedClient, qty);
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() == 2);

    server.expireSession(doomedClient.sessionId());

    ExecutionException failure = assertThrows(ExecutionException.class, () -> doomed.get(30, TimeUnit.SECONDS));
    assertInstanceOf(SessionExpiredException.class, failure.getCause());
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() == 1);
    Future<?> third = enterInBackground(clients.connect(), qty);
    await().atMost(Clients.WAIT).until(() -> memberNodes().size() == 2);
    assertFalse(readyExists(), "two live members must not complete a group of three");
    assertFalse(first.isDone() || third.isDone());

    Future<?> replacement = enterInBackground(clients.connect(), qty);

    first.get(30, TimeUnit.SECONDS);
    third.get(30, TimeUnit.SECONDS);
    replacement.get(30, TimeUnit.SECONDS);
  }

  @Test
  void aMemberWhoseSessionEndsAfterEnteringDoesNotHoldTheOthersInLeave() throws Exception {
    int qty = 3;
    List<DistributedDoubleBarrier> barriers = new ArrayList<>();
    List<CoordinationClient> memberClients = new ArrayList<>();
    List<Future<?>> entering = new ArrayList<>();
    for (int i = 0; i < qty; i++) {
      CoordinationClient client = clients.connect();
      DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, PATH, qty);
      memberClients.add(client);
      barriers.add(barrier);
      entering.add(threads.submit(() -> {
        barrier.enter();
        return null;
      }));
    }
    for (Future<?> member : entering) {
      member.get(30, TimeUnit.SECONDS);
    }

    server.expireSession(memberClients.get(2).sessionId());

    List<Future<Boolean>> leaving = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      DistributedDoubleBarrier barrier = barriers.get(i);
      leaving.add(threads.submit(() -> barrier.leave(60, TimeUnit.SECONDS)));
    }
    for (Future<Boolean> member : leaving) {
      assertTrue(member.get(30, TimeUnit.SECONDS));
    }
    assertThrows(SessionExpiredException.class, () -> barriers.get(2).leave());
    assertEquals(List.of(), memberNodes());
  }

  @Test
  void aMemberWhoseSessionEndsWhileItWaitsInLeaveAfterDeletingItsNodeIsToldSo() throws Exception {
    int qty = 2;
    CoordinationClient firstClient = clients.connect();
    CoordinationClient secondClient = clients.connect();
    DistributedDoubleBarrier first = new DistributedDoubleBarrier(firstClient, PATH, qty);
    DistributedDoubleBarrier second = new DistributedDoubleBarrier(secondClient, PATH, qty);
    Future<?> firstEntering = threads.submit(() -> {
      first.enter();
      return null;
    });
    second.enter();
    firstEntering.get(30, TimeUnit.SECONDS);
    // a member other than the lowest deletes its own node as it leaves, then waits for the lowest to go
    String lowest = memberNodes().stream().sorted().findFirst().orElseThrow();
    boolean firstIsLowest = firstClient.getEphemerals(PATH).stream().anyMatch(node -> node.endsWith("/" + lowest));
    CoordinationClient leaverClient = firstIsLowest ? secondClient : firstClient;
    DistributedDoubleBarrier leaver = firstIsLowest ? second : first;
    Future<Boolean> leaving = threads.submit(() -> leaver.leave(60, TimeUnit.SECONDS));
    await().atMost(Clients.WAIT).until(() -> memberNodes().equals(List.of(lowest)));

    server.expireSession(leaverClient.sessionId());

    ExecutionException failure = assertThrows(ExecutionException.class, () -> leaving.get(30, TimeUnit.SECONDS));
    assertInstanceOf(SessionExpiredException.class, failure.getCause());
  }

  @Test
  void aTimedOutLeaveDeletesTheMembersNodeSoTheOthersCanLeave() throws Exception {
    int qty = 2;
    DistributedDoubleBarrier impatient = new DistributedDoubleBarrier(clients.connect(), PATH, qty);
    DistributedDoubleBarrier slow = new DistributedDoubleBarrier(clients.connect(), PATH, qty);
    Future<?> slowEntering = threads.submit(() -> {
      slow.enter();
      return null;
    });
    impatient.enter();
    slowEntering.get(30, TimeUnit.SECONDS);

    assertFalse(impatient.leave(200, TimeUnit.MILLISECONDS));

    assertTrue(slow.leave(30, TimeUnit.SECONDS));
    assertEquals(List.of(), memberNodes());
  }

  @Test
  void enteringTwiceOrLeavingWithoutEnteringFails() throws Exception {
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(clients.connect(), PATH, 1);
    assertThrows(IllegalStateException.class, barrier::leave);
    barrier.enter();
    assertThrows(IllegalStateException.class, barrier::enter);
    barrier.leave();
    assertThrows(IllegalArgumentException.class, () -> new DistributedDoubleBarrier(observer, PATH, 0));
  }

  private Future<?> enterInBackground(CoordinationClient client, int qty) {
    DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(client, PATH, qty);
    return threads.submit(() -> {
      barrier.enter();
      return null;
    });
  }
}
