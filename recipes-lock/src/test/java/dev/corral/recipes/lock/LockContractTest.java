package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What every lock type promises, run against each of them (one subclass per
 * type), against a real server with one client (session) per participant.
 */
abstract class LockContractTest extends ServerTest {
  /** Clients and acquisitions per client of the contention test (16 x 200: 10-25 s per lock type on 2 cores). */
  static final int CONTENDERS = 16;
  static final int ACQUISITIONS_PER_CONTENDER = 200;

  /** A lock of the type under test. */
  abstract InterProcessLock newLock(CoordinationClient client, String path);

  /** Where the waiters of a lock on {@code path} queue, one node each. */
  String queuePath(String path) {
    return path;
  }

  abstract boolean reentrant();

  /** Watch events a waiter may receive before its grant (1: woken once, by its predecessor). */
  int wakeupsPerWaiter() {
    return 1;
  }

  /** True if any thread of the holding process may release the lock and read its token, not only the holder. */
  boolean anyThreadReleases() {
    return false;
  }

  /** What release and fencingToken throw when the lock is not held. */
  Class<? extends RuntimeException> notHeldFailure() {
    return IllegalMonitorStateException.class;
  }

  @Test
  void mutualExclusionHoldsUnderContentionAndTokensIncrease() throws Exception {
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicInteger tokenRegressions = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    AtomicLong counter = new AtomicLong();
    List<Future<?>> contenders = new ArrayList<>();
    for (int i = 0; i < CONTENDERS; i++) {
      InterProcessLock lock = newLock(clients.newClient(), path);
      contenders.add(clients.threads().submit(() -> {
        for (int k = 0; k < ACQUISITIONS_PER_CONTENDER; k++) {
          assertTrue(lock.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS), "acquired");
          try {
            if (inside.getAndIncrement() != 0) {
              overlaps.incrementAndGet();
            }
            long token = lock.fencingToken();
            if (lastToken.getAndSet(token) >= token) {
              tokenRegressions.incrementAndGet();
            }
            long seen = counter.get();
            Thread.yield();
            counter.set(seen + 1);
            inside.decrementAndGet();
          } finally {
            lock.release();
          }
        }
        return null;
      }));
    }
    for (Future<?> contender : contenders) {
      contender.get(5, TimeUnit.MINUTES);
    }
    assertEquals(0, overlaps.get(), "holders overlapping");
    assertEquals(0, tokenRegressions.get(), "fencing tokens not increasing from holder to holder");
    assertEquals((long) CONTENDERS * ACQUISITIONS_PER_CONTENDER, counter.get());
  }

  @Test
  void grantsFollowArrivalOrderAndEachWaiterIsWokenOnlyByItsTurn() throws Exception {
    CoordinationClient observer = clients.newClient();
    InterProcessLock holder = newLock(clients.newClient(), path);
    holder.acquire();
    int waiters = 5;
    BlockingQueue<Integer> grants = new LinkedBlockingQueue<>();
    List<CountingClient> waiterClients = new ArrayList<>();
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      CountingClient counting = clients.newCountingClient();
      waiterClients.add(counting);
      InterProcessLock lock = newLock(counting.client(), path);
      int before = Clients.lockNodesUnder(observer, queuePath(path));
      int index = i;
      done.add(clients.threads().submit(() -> {
        assertTrue(lock.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS));
        grants.add(index);
        lock.release();
        return null;
      }));
      await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, queuePath(path)) > before);
    }
    holder.release();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      Integer next = grants.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      assertTrue(next != null, "waiter granted");
      order.add(next);
    }
    for (Future<?> waiter : done) {
      waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }
    assertEquals(List.of(0, 1, 2, 3, 4), order);
    for (int i = 0; i < waiters; i++) {
      int events = waiterClients.get(i).watchEvents();
      assertTrue(events >= 1 && events <= wakeupsPerWaiter(),
          "waiter " + i + " was woken " + events + " times (a herd wakes every waiter on every release)");
    }
  }

  @Test
  void waiterGetsLockAfterHolderSessionExpiresAndOldHolderIsToldItIsLost() throws Exception {
    CoordinationClient clientA = clients.newClient();
    InterProcessLock lockA = newLock(clientA, path);
    InterProcessLock lockB = newLock(clients.newClient(), path);
    BlockingQueue<LockState> statesA = new LinkedBlockingQueue<>();
    lockA.addListener(statesA::add);
    lockA.acquire();
    long tokenA = lockA.fencingToken();
    assertEquals(LockState.HELD, lockA.state());

    Future<Long> tokenB = clients.threads().submit(() -> {
      assertTrue(lockB.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS));
      try {
        assertTrue(lockB.isOwnedByCurrentThread());
        return lockB.fencingToken();
      } finally {
        lockB.release();
      }
    });
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(clientA, queuePath(path)) >= 1
        && Clients.lockNodesUnder(clientA, path) >= 2);
    long expiredSession = clientA.sessionId();
    server.expireSession(expiredSession);

    assertTrue(tokenB.get(PATIENCE.toSeconds(), TimeUnit.SECONDS) > tokenA, "the next holder's token is higher");
    await().atMost(PATIENCE).until(() -> !lockA.isAcquiredInThisProcess());
    assertFalse(lockA.isOwnedByCurrentThread());
    assertEquals(LockState.LOST, lockA.state());
    assertEquals(LockState.LOST, statesA.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    assertThrows(IllegalMonitorStateException.class, lockA::fencingToken);

    lockA.release(); // clears the lost hold
    assertEquals(LockState.NOT_HELD, lockA.state());
    await().atMost(PATIENCE).until(() -> clientA.state().isConnected() && clientA.sessionId() != expiredSession);
    assertTrue(lockA.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS), "the new session gets the lock afresh");
    try {
      assertTrue(lockA.fencingToken() > tokenA);
    } finally {
      lockA.release();
    }
  }

  @Test
  void secondAcquireByTheHolderFollowsTheLockTypesReentrancy() throws Exception {
    if (reentrant()) {
      reentrantLockIsReleasedOnlyAfterTheMatchingNumberOfReleases();
    } else {
      nonReentrantLockMakesTheHolderWaitLikeAnyoneElse();
    }
  }

  private void reentrantLockIsReleasedOnlyAfterTheMatchingNumberOfReleases() throws Exception {
    InterProcessLock lock = newLock(clients.newClient(), path);
    InterProcessLock other = newLock(clients.newClient(), path);
    lock.acquire();
    assertTrue(lock.acquire(1, TimeUnit.SECONDS));
    long token = lock.fencingToken();
    lock.release();
    assertTrue(lock.isOwnedByCurrentThread());
    assertEquals(token, lock.fencingToken());
    assertFalse(other.acquire(200, TimeUnit.MILLISECONDS));
    lock.release();
    assertFalse(lock.isAcquiredInThisProcess());
    assertTrue(other.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    other.release();
  }

  private void nonReentrantLockMakesTheHolderWaitLikeAnyoneElse() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessLock lock = newLock(client, path);
    lock.acquire();
    assertFalse(lock.acquire(300, TimeUnit.MILLISECONDS));
    assertTrue(lock.isOwnedByCurrentThread());
    assertEquals(1, Clients.lockNodesUnder(client, path), "the failed second acquire left no node");
    lock.release();
    assertFalse(lock.isAcquiredInThisProcess());
  }

  @Test
  void timedOutAcquireReturnsFalseAndLeavesNoNode() throws Exception {
    InterProcessLock holder = newLock(clients.newClient(), path);
    CoordinationClient client = clients.newClient();
    InterProcessLock waiter = newLock(client, path);
    holder.acquire();
    assertEquals(1, Clients.lockNodesUnder(client, path));
    assertFalse(waiter.acquire(300, TimeUnit.MILLISECONDS));
    assertFalse(waiter.isAcquiredInThisProcess());
    assertEquals(1, Clients.lockNodesUnder(client, path), "only the holder's node is left");
    assertFalse(waiter.acquire(0, TimeUnit.MILLISECONDS));
    assertEquals(1, Clients.lockNodesUnder(client, path), "only the holder's node is left");
    holder.release();
  }

  @Test
  void interruptedAcquireThrowsAndLeavesNoNode() throws Exception {
    CoordinationClient observer = clients.newClient();
    InterProcessLock holder = newLock(clients.newClient(), path);
    InterProcessLock waiter = newLock(clients.newClient(), path);
    holder.acquire();
    BlockingQueue<Thread> waiting = new LinkedBlockingQueue<>();
    Future<?> acquire = clients.threads().submit(() -> {
      waiting.add(Thread.currentThread());
      waiter.acquire();
      return null;
    });
    Thread thread = waiting.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, path) >= 2);
    thread.interrupt();
    ExecutionException failure = assertThrows(ExecutionException.class,
        () -> acquire.get(PATIENCE.toSeconds(), TimeUnit.SECONDS));
    assertInstanceOf(InterruptedException.class, failure.getCause());
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, path) == 1);
    assertFalse(waiter.isAcquiredInThisProcess());
    holder.release();
  }

  @Test
  void releaseAndTokenAreTheHoldingThreadsOrTheProcesssAsTheLockTypeSays() throws Exception {
    InterProcessLock lock = newLock(clients.newClient(), path);
    assertThrows(notHeldFailure(), lock::release);
    assertThrows(notHeldFailure(), lock::fencingToken);
    lock.acquire();
    long token = lock.fencingToken();
    Future<?> stranger = clients.threads().submit(() -> {
      assertFalse(lock.isOwnedByCurrentThread());
      assertTrue(lock.isAcquiredInThisProcess());
      if (anyThreadReleases()) {
        assertEquals(token, lock.fencingToken());
        lock.release();
      } else {
        assertThrows(IllegalMonitorStateException.class, lock::release);
        assertThrows(IllegalMonitorStateException.class, lock::fencingToken);
      }
      return null;
    });
    stranger.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    if (!anyThreadReleases()) {
      assertTrue(lock.isOwnedByCurrentThread());
      lock.release();
    }
    assertThrows(notHeldFailure(), lock::release);
    assertFalse(lock.isAcquiredInThisProcess());
    assertTrue(newLock(clients.newClient(), path).acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS), "released for all");
  }

  @Test
  void lockPathIsGoneAfterTheLastHolderReleases() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessLock first = newLock(client, path);
    InterProcessLock second = newLock(clients.newClient(), path);
    first.acquire();
    Future<?> waiter = clients.threads().submit(() -> {
      assertTrue(second.acquire(PATIENCE.toSeconds(), TimeUnit.SECONDS));
      second.release();
      return null;
    });
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(client, path) >= 2);
    first.release();
    waiter.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    await().atMost(PATIENCE).until(() -> client.exists(path).isEmpty());
  }
}
