package dev.corral.recipes.barrier;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionLossException;
import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DistributedBarrierTest {
  private static final String PATH = "/barriers/gate";

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
    try {
      threads.shutdownNow();
      assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS), "waiter threads did not stop");
    } finally {
      try {
        clients.close();
      } finally {
        server.close();
      }
    }
  }

  @Test
  void aTimedWaitEndsAtItsDeadlineWhileTheServerIsDown() throws Exception {
    CoordinationClient waiter = clients.connectPatient();
    new DistributedBarrier(clients.connect(), PATH).setBarrier();
    server.stop();
    await().atMost(Clients.WAIT).until(() -> !waiter.state().isConnected());

    DistributedBarrier barrier = new DistributedBarrier(waiter, PATH);
    Started<Boolean> waiting = Started.call(() -> barrier.waitOnBarrier(1, TimeUnit.SECONDS));

    assertFalse(waiting.result());
    assertEquals(ConnectionState.SUSPENDED, waiter.state(),
        "the wait ended at its own deadline, while the session could still live, not once it was lost");
  }

  @Test
  void aTimedWaitUnderWayWhenTheServerGoesEndsAtItsDeadline() throws Exception {
    CoordinationClient waiter = clients.connectPatient();
    new DistributedBarrier(clients.connect(), PATH).setBarrier();
    DistributedBarrier barrier = new DistributedBarrier(waiter, PATH);
    Started<Boolean> waiting = Started.call(() -> barrier.waitOnBarrier(3, TimeUnit.SECONDS));
    await().atMost(Clients.WAIT).until(waiting::waitsForAChange); // its watch is set

    server.stop();

    assertFalse(waiting.result());
    assertEquals(ConnectionState.SUSPENDED, waiter.state(),
        "the wait ended at its own deadline, while the session could still live, not once it was lost");
  }

  @Test
  void waiterFailsWithConnectionLossWhenTheServerStops() throws Exception {
    new DistributedBarrier(clients.connect(), PATH).setBarrier();
    DistributedBarrier barrier = new DistributedBarrier(clients.connectImpatient(), PATH);
    Started<Boolean> waiting = Started.call(() -> barrier.waitOnBarrier(60, TimeUnit.SECONDS));
    await().atMost(Clients.WAIT).until(waiting::waitsForAChange); // its watch is set

    server.stop();

    ExecutionException failure = assertThrows(ExecutionException.class, waiting::result);
    assertInstanceOf(ConnectionLossException.class, failure.getCause());
  }

  @Test
  void anUntimedWaiterFailsWithConnectionLossWhenTheServerStops() throws Exception {
    new DistributedBarrier(clients.connect(), PATH).setBarrier();
    DistributedBarrier barrier = new DistributedBarrier(clients.connectImpatient(), PATH);
    Started<Void> waiting = Started.call(() -> {
      barrier.waitOnBarrier();
      return null;
    });
    await().atMost(Clients.WAIT).until(waiting::waitsForAChange);

    server.stop();

    ExecutionException failure = assertThrows(ExecutionException.class, waiting::result);
    assertInstanceOf(ConnectionLossException.class, failure.getCause());
  }

  @Test
  void aWaiterWhoseSessionIsLostWhileTheServerIsDownChecksAgainInTheNewSession() throws Exception {
    DistributedBarrier barrier = new DistributedBarrier(clients.connect(), PATH);
    barrier.setBarrier();
    CoordinationClient waiterClient = clients.connectPatient(Duration.ofSeconds(4));
    CountDownLatch lost = new CountDownLatch(1);
    waiterClient.addConnectionStateListener((client, state) -> {
      if (state == ConnectionState.LOST) {
        lost.countDown();
      }
    });
    DistributedBarrier waiter = new DistributedBarrier(waiterClient, PATH);
    Started<Void> waiting = Started.call(() -> {
      waiter.waitOnBarrier();
      return null;
    });
    await().atMost(Clients.WAIT).until(waiting::waitsForAChange);

    server.stop(); // woken by SUSPENDED, the waiter checks again; the check waits for a server until LOST fails it
    assertTrue(lost.await(Clients.WAIT.toSeconds(), TimeUnit.SECONDS), "the session was not lost");
    server.start();
    await().atMost(Clients.WAIT).until(() -> waiting.outcome().isDone()
        || waiterClient.state().isConnected() && waiting.waitsForAChange());
    assertFalse(waiting.outcome().isDone(), "the wait ended while the barrier stands");
    barrier.removeBarrier();

    assertNull(waiting.result());
  }

  @Test
  void waitersAreReleasedWhenTheBarrierIsRemoved() throws Exception {
    CoordinationClient owner = clients.connect();
    DistributedBarrier barrier = new DistributedBarrier(owner, PATH);
    barrier.setBarrier();
    List<Future<Boolean>> waiters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DistributedBarrier waiter = new DistributedBarrier(clients.connect(), PATH);
      waiters.add(threads.submit(() -> {
        waiter.waitOnBarrier();
        return true;
      }));
    }
    assertTrue(waiters.stream().noneMatch(Future::isDone), "a waiter was released while the barrier stands");

    barrier.removeBarrier();

    for (Future<Boolean> waiter : waiters) {
      assertTrue(waiter.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void aTimedWaitReturnsFalseWhileTheBarrierStands() throws Exception {
    DistributedBarrier barrier = new DistributedBarrier(clients.connect(), PATH);
    barrier.setBarrier();
    assertFalse(barrier.waitOnBarrier(200, TimeUnit.MILLISECONDS));
    barrier.removeBarrier();
    assertTrue(barrier.waitOnBarrier(30, TimeUnit.SECONDS));
  }

  @Test
  void waitingOnABarrierNeverSetReturnsAtOnce() throws Exception {
    DistributedBarrier barrier = new DistributedBarrier(clients.connect(), PATH);
    assertTrue(barrier.waitOnBarrier(0, TimeUnit.MILLISECONDS));
    assertDoesNotThrow(() -> barrier.waitOnBarrier());
  }

  @Test
  void settingTwiceAndRemovingTwiceAreHarmless() throws Exception {
    CoordinationClient client = clients.connect();
    DistributedBarrier barrier = new DistributedBarrier(client, PATH);
    barrier.setBarrier();
    barrier.setBarrier();
    assertTrue(client.exists(PATH).isPresent());
    barrier.removeBarrier();
    barrier.removeBarrier();
    assertFalse(client.exists(PATH).isPresent());
  }

  @Test
  void theBarrierOutlivesTheSessionThatSetIt() throws Exception {
    CoordinationClient setter = clients.connect();
    new DistributedBarrier(setter, PATH).setBarrier();
    setter.close();
    DistributedBarrier other = new DistributedBarrier(clients.connect(), PATH);
    assertFalse(other.waitOnBarrier(100, TimeUnit.MILLISECONDS));
  }

  @Test
  void aWaiterKeepsWaitingThroughAServerRestartAndIsReleasedAfter() throws Exception {
    CoordinationClient owner = clients.connect();
    DistributedBarrier barrier = new DistributedBarrier(owner, PATH);
    barrier.setBarrier();
    CoordinationClient waiterClient = clients.connect();
    DistributedBarrier waiter = new DistributedBarrier(waiterClient, PATH);
    Future<Boolean> waiting = threads.submit(() -> waiter.waitOnBarrier(60, TimeUnit.SECONDS));

    server.stop();
    server.start();
    assertTrue(owner.blockUntilConnected(30, TimeUnit.SECONDS));
    assertTrue(waiterClient.blockUntilConnected(30, TimeUnit.SECONDS));
    assertFalse(waiting.isDone(), "released while the barrier stands");
    barrier.removeBarrier();

    assertTrue(waiting.get(30, TimeUnit.SECONDS));
  }

  @Test
  void anInterruptedWaitThrowsInterruptedException() throws Exception {
    DistributedBarrier barrier = new DistributedBarrier(clients.connect(), PATH);
    barrier.setBarrier();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        barrier.waitOnBarrier();
        outcome.complete(null);
      } catch (Throwable t) {
        outcome.complete(t);
      }
    });
    waiter.start();
    await().atMost(Clients.WAIT).until(() -> waiter.getState() == Thread.State.WAITING || waiter.getState() == Thread.State.TIMED_WAITING);

    waiter.interrupt();

    assertInstanceOf(InterruptedException.class, outcome.get(30, TimeUnit.SECONDS));
  }
}
