package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Cooperative revocation, as Curator's makeRevocable and Revoker. */
class RevocationTest extends ServerTest {

  @Test
  void theHolderIsToldWhenAnotherProcessAsksForItsLockAndTheOtherGetsItOnceReleased() throws Exception {
    InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
    BlockingQueue<InterProcessMutex> asked = new LinkedBlockingQueue<>();
    holder.makeRevocable(asked::add);
    holder.acquire();

    CoordinationClient other = clients.newClient();
    InterProcessMutex contender = new InterProcessMutex(other, path);
    List<String> nodes = contender.getParticipantNodes();
    assertEquals(List.of(holder.getLockPath()), nodes);
    Revoker.attemptRevoke(other, nodes.get(0));

    assertSame(holder, asked.poll(seconds(PATIENCE), TimeUnit.SECONDS), "the holder heard the request");
    assertTrue(holder.isOwnedByCurrentThread(), "revocation releases nothing by itself");
    holder.release();
    assertTrue(contender.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    contender.release();
  }

  @Test
  void aRequestMadeWhileTheNodeWaitedIsHeardAtTheGrantNotBefore() throws Exception {
    InterProcessMutex first = new InterProcessMutex(clients.newClient(), path);
    first.acquire();
    CoordinationClient waiterClient = clients.newClient();
    InterProcessMutex waiter = new InterProcessMutex(waiterClient, path);
    BlockingQueue<InterProcessMutex> asked = new LinkedBlockingQueue<>();
    waiter.makeRevocable(asked::add);
    Future<Boolean> waiting = clients.threads().submit(() -> {
      boolean got = waiter.acquire(seconds(PATIENCE), TimeUnit.SECONDS);
      if (got) {
        waiter.release();
      }
      return got;
    });
    CoordinationClient revoker = clients.newClient();
    await().atMost(PATIENCE).until(() -> first.getParticipantNodes().size() == 2);
    List<String> nodes = first.getParticipantNodes();
    Revoker.attemptRevoke(revoker, nodes.get(1));
    waiterClient.sync("/"); // whatever the request told the waiter's session has been delivered before this returns
    assertTrue(asked.isEmpty(), "nobody is told before the lock is held");

    first.release();
    assertSame(waiter, asked.poll(seconds(PATIENCE), TimeUnit.SECONDS), "told once granted");
    assertTrue(waiting.get(seconds(PATIENCE), TimeUnit.SECONDS));
  }

  @Test
  void aSecondRequestIsHeardAgainOnTheListenersExecutor() throws Exception {
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "revocation-test"));
    try {
      InterProcessMutex holder = new InterProcessMutex(clients.newClient(), path);
      BlockingQueue<String> threads = new LinkedBlockingQueue<>();
      holder.makeRevocable(lock -> threads.add(Thread.currentThread().getName()), executor);
      holder.acquire();
      CoordinationClient other = clients.newClient();
      Revoker.attemptRevoke(other, holder.getLockPath());
      assertEquals("revocation-test", threads.poll(seconds(PATIENCE), TimeUnit.SECONDS));
      Revoker.attemptRevoke(other, holder.getLockPath());
      assertEquals("revocation-test", threads.poll(seconds(PATIENCE), TimeUnit.SECONDS));
      holder.release();
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void revokingAReleasedNodeIsNoErrorAndALockNotMadeRevocableHearsNothing() throws Exception {
    InterProcessMutex lock = new InterProcessMutex(clients.newClient(), path);
    lock.acquire();
    String node = lock.getLockPath();
    CoordinationClient other = clients.newClient();
    Revoker.attemptRevoke(other, node);
    assertTrue(lock.isOwnedByCurrentThread());
    lock.release();
    Revoker.attemptRevoke(other, node);
    assertFalse(other.exists(node).isPresent());
  }

  @Test
  void aRevokedWriteLockHolderReleasesAndAMutexOnTheSamePathGetsIt() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessReadWriteLock lock = new InterProcessReadWriteLock(client, path);
    CountDownLatch revoked = new CountDownLatch(1);
    CountDownLatch held = new CountDownLatch(1);
    lock.writeLock().makeRevocable(forLock -> revoked.countDown());
    Future<Void> holder = clients.threads().submit(() -> {
      lock.writeLock().acquire();
      held.countDown();
      assertTrue(revoked.await(seconds(PATIENCE), TimeUnit.SECONDS), "revocation heard");
      lock.writeLock().release();
      return null;
    });
    assertTrue(held.await(seconds(PATIENCE), TimeUnit.SECONDS));
    List<String> nodes = lock.writeLock().getParticipantNodes();
    assertEquals(1, nodes.size());
    Revoker.attemptRevoke(client, nodes.get(0));
    InterProcessMutex mutex = new InterProcessMutex(client, path);
    assertTrue(mutex.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    mutex.release();
    holder.get(seconds(PATIENCE), TimeUnit.SECONDS);
  }
}
