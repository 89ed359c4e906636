package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.Protection;
import dev.corral.client.grpc.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What the mutex promises beyond the lock contract: round trips, lost replies, expiry, outages. */
class InterProcessMutexTest extends ServerTest {

  @Test
  void uncontendedAcquireIsOneRoundTrip() throws Exception {
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex lock = new InterProcessMutex(counting.client(), path);
    lock.acquire();
    try {
      assertEquals(1, counting.serverCalls(), "server calls of an uncontended acquire");
      assertEquals(1, counting.calls("multi"));
    } finally {
      lock.release();
    }
  }

  @Test
  void aWaiterIsGrantedByTheEventOfItsTurnWithNoCallAfterTheWakeUp() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    holder.acquire();
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex waiter = new InterProcessMutex(counting.client(), path);
    Future<Integer> waiting = clients.threads().submit(() -> {
      assertTrue(waiter.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      int seen = counting.serverCalls();
      waiter.release();
      return seen;
    });
    // the waiter's create+list, then the FIRST watch on its own node
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(5)).until(() -> counting.calls("addWatch") == 1);
    counting.resetCalls();
    holder.release();
    assertEquals(0, waiting.get(seconds(PATIENCE), TimeUnit.SECONDS), "server calls from the wake-up to the grant");
  }

  @Test
  void aWaiterWhosePredecessorGivesUpWaitsOnForTheHolder() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    holder.acquire();
    InterProcessMutex quitter = new InterProcessMutex(clients.newClient(), path);
    Future<Boolean> quitting = clients.threads().submit(() -> quitter.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 2);
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex waiter = new InterProcessMutex(counting.client(), path);
    Future<?> waiting = acquiringThenReleasing(waiter);
    await().atMost(PATIENCE).until(() -> counting.calls("addWatch") == 1);

    quitting.cancel(true); // the waiter's predecessor gives up: its node goes, the holder's stays
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 2);
    counting.client().getChildren(path); // answered after any event the deletion sent the waiter
    assertEquals(0, counting.watchEvents(), "the waiter was told of a turn while the holder held the lock");
    holder.release();

    waiting.get(seconds(PATIENCE), TimeUnit.SECONDS);
    assertEquals(1, counting.watchEvents(), "its turn, once the holder released");
  }

  @Test
  void lockNodesAreProtectedAndSequential() throws Exception {
    InterProcessMutex lock = new InterProcessMutex(clients.newClient(), path);
    lock.acquire();
    try {
      List<String> nodes = lock.getParticipantNodes();
      assertEquals(1, nodes.size());
      String name = nodes.get(0).substring(path.length() + 1);
      assertTrue(Protection.isProtected(name), name);
      assertTrue(Protection.unprotected(name).matches("lock-\\d{10}"), name);
    } finally {
      lock.release();
    }
  }

  @Test
  void lostCreateReplyIsRecoveredWithoutASecondNode() throws Exception {
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex lock = new InterProcessMutex(counting.client(), path);
    counting.loseNextMultiReply();
    lock.acquire();
    try {
      assertEquals(1, lock.getParticipantNodes().size(), "the node whose reply was lost is adopted");
      assertTrue(lock.isOwnedByCurrentThread());
    } finally {
      lock.release();
    }
    await().atMost(PATIENCE).until(() -> lock.getParticipantNodes().isEmpty());
  }

  @Test
  void aCreateRetriedAcrossASessionChangeLeavesNoNodeOfTheNewSessionBehind() throws Exception {
    CountingClient counting = clients.newCountingClient();
    CoordinationClient client = counting.client();
    InterProcessMutex lock = new InterProcessMutex(client, path);
    long first = client.sessionId();
    counting.failNextMultiAfter(() -> {
      server.expireSession(first);
      await().atMost(PATIENCE).until(() -> client.sessionId() != first && client.state().isConnected());
    });

    assertTrue(lock.acquire(seconds(PATIENCE), TimeUnit.SECONDS), "acquired in the new session");
    try {
      assertEquals(1, lock.getParticipantNodes().size(), "the retried create's node, then the lock's: "
          + lock.getParticipantNodes());
    } finally {
      lock.release();
    }
    InterProcessMutex other = new InterProcessMutex(clients.newClient(), path);
    assertTrue(other.acquire(seconds(PATIENCE), TimeUnit.SECONDS), "nothing is left in the way of another client");
    other.release();
  }

  @Test
  void timedOutAcquireWhoseCreateReplyWasLostLeavesNoNode() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    holder.acquire();
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex lock = new InterProcessMutex(counting.client(), path);
    counting.loseNextMultiReply();
    assertFalse(lock.acquire(300, TimeUnit.MILLISECONDS));
    assertEquals(1, lock.getParticipantNodes().size(), "only the holder's node is left");
    holder.release();
  }

  @Test
  void waiterWhoseSessionExpiredIsNeverGrantedOnItsOldNodeAndQueuesAgainInTheNewSession() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    CoordinationClient waiterClient = clients.newClient();
    InterProcessMutex waiter = new InterProcessMutex(waiterClient, path);
    holder.acquire();
    Future<Long> waiting = clients.threads().submit(() -> {
      assertTrue(waiter.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      try {
        return waiterClient.exists(waiter.getParticipantNodes().get(0)).orElseThrow().ephemeralOwner();
      } finally {
        waiter.release();
      }
    });
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 2);
    String oldNode = holder.getParticipantNodes().get(1);
    long oldSession = waiterClient.sessionId();
    server.expireSession(oldSession);
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 2
        && !holder.getParticipantNodes().contains(oldNode));
    holder.release();
    long owner = waiting.get(seconds(PATIENCE), TimeUnit.SECONDS);
    assertTrue(owner != oldSession && owner == waiterClient.sessionId(), "granted on a node of the new session");
    assertFalse(waiter.isAcquiredInThisProcess());
  }

  @Test
  void waiterWhoseSessionExpiredFailsOnceItsDeadlinePassed() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    CoordinationClient waiterClient = clients.newClient();
    InterProcessMutex waiter = new InterProcessMutex(waiterClient, path);
    holder.acquire();
    Future<Boolean> waiting = clients.threads().submit(() -> waiter.acquire(1, TimeUnit.SECONDS));
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 2);
    server.expireSession(waiterClient.sessionId());
    try {
      assertFalse(waiting.get(seconds(PATIENCE), TimeUnit.SECONDS));
    } catch (ExecutionException failure) {
      assertInstanceOf(CoordinationException.class, failure.getCause());
    }
    await().atMost(PATIENCE).until(() -> holder.getParticipantNodes().size() == 1);
    assertFalse(waiter.isAcquiredInThisProcess());
    holder.release();
  }

  @Test
  void holderIsToldSuspendedWhileTheServerIsDownAndHeldAgainAfterReconnecting() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessMutex lock = new InterProcessMutex(client, path);
    BlockingQueue<LockState> states = new LinkedBlockingQueue<>();
    lock.addListener(states::add);
    lock.acquire();
    long token = lock.fencingToken();
    server.stop();
    try {
      assertEquals(LockState.SUSPENDED, states.poll(seconds(PATIENCE), TimeUnit.SECONDS));
      assertEquals(LockState.SUSPENDED, lock.state());
      assertTrue(lock.isAcquiredInThisProcess(), "suspended is not lost");
    } finally {
      server.start();
    }
    assertEquals(LockState.HELD, states.poll(seconds(PATIENCE), TimeUnit.SECONDS));
    assertTrue(lock.isOwnedByCurrentThread());
    assertEquals(token, lock.fencingToken());
    lock.release();
    assertEquals(LockState.NOT_HELD, lock.state());
    assertTrue(lock.getParticipantNodes().isEmpty());
  }

  @Test
  void releaseThatCannotReachTheServerIsFinishedInTheBackgroundAndNotClaimedBefore() throws Exception {
    // fail fast while disconnected (the default client waits and retries, up to the session timeout)
    CoordinationClient client = clients.newClient(builder -> builder
        .retryPolicy(RetryPolicy.none())
        .connectionTimeout(Duration.ofMillis(500)));
    InterProcessMutex lock = new InterProcessMutex(client, path);
    lock.acquire();
    String node = lock.getParticipantNodes().get(0);
    server.stop();
    try {
      await().atMost(PATIENCE).until(() -> !client.state().isConnected());
      CoordinationException failure = assertThrows(CoordinationException.class, lock::release);
      assertTrue(failure.code().isRetryable(), failure.toString());
      assertFalse(lock.isAcquiredInThisProcess(), "the caller gave it up, as in Curator");
      assertFalse(lock.isOwnedByCurrentThread());
      assertThrows(IllegalMonitorStateException.class, lock::release);
      assertNotEquals(LockState.NOT_HELD, lock.state(), "not released before the server confirmed it");
    } finally {
      server.start();
    }
    await().atMost(PATIENCE).until(() -> lock.state() == LockState.NOT_HELD);
    assertTrue(client.exists(node).isEmpty(), "the node is gone once the lock says released");
  }

  @Test
  void threadsOfOneProcessShareAMutexObjectFairly() throws Exception {
    InterProcessMutex lock = new InterProcessMutex(clients.newClient(), path);
    lock.acquire();
    Future<Long> other = clients.threads().submit(() -> {
      assertTrue(lock.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      try {
        return lock.fencingToken();
      } finally {
        lock.release();
      }
    });
    await().atMost(PATIENCE).until(() -> lock.getParticipantNodes().size() == 2);
    long token = lock.fencingToken();
    lock.release();
    assertTrue(other.get(seconds(PATIENCE), TimeUnit.SECONDS) > token);
  }

  @Test
  void aSequentialNodeOfAnotherKindUnderTheLockPathIsNotInTheWay() throws Exception {
    createQueueItem();
    InterProcessMutex lock = new InterProcessMutex(clients.newClient(), path);

    assertTrue(lock.acquire(seconds(PATIENCE), TimeUnit.SECONDS), "as in Curator, where it sorts after lock nodes");
    assertEquals(1, lock.getParticipantNodes().size());
    lock.release();
  }

  @Test
  void aWaiterBehindANodeOfAnotherKindWatchesItsPredecessorInsteadOfItsTurn() throws Exception {
    createQueueItem();
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    holder.acquire();
    CountingClient counting = clients.newCountingClient();
    InterProcessMutex waiter = new InterProcessMutex(counting.client(), path);
    Future<?> waiting = acquiringThenReleasing(waiter);
    await().atMost(PATIENCE).until(() -> counting.calls("exists") == 1); // watching the holder's node

    holder.release();
    waiting.get(seconds(PATIENCE), TimeUnit.SECONDS);
    // the turn of a node behind the item would come only once the item went
    assertEquals(0, counting.calls("addWatch"), "FIRST watches left");
  }

  /** Acquires {@code lock} on another thread, then releases it; done once both worked. */
  private Future<?> acquiringThenReleasing(InterProcessMutex lock) {
    return clients.threads().submit(() -> {
      assertTrue(lock.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      lock.release();
      return null;
    });
  }
}
