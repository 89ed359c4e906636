package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import dev.corral.client.NoNodeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Collection;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scenarios from Curator's lock tests and from failures Curator users reported. */
class CuratorScenariosTest extends ServerTest {

  @Test
  void twoMutexObjectsOnOnePathOfOneClientExcludeEachOther() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessMutex first = new InterProcessMutex(client, path);
    InterProcessMutex second = new InterProcessMutex(client, path);
    first.acquire();
    assertFalse(second.acquire(200, TimeUnit.MILLISECONDS), "the same thread through another object");
    Future<Boolean> other = clients.threads().submit(() -> second.acquire(200, TimeUnit.MILLISECONDS));
    assertFalse(other.get(seconds(PATIENCE), TimeUnit.SECONDS), "another thread through another object");
    first.release();
    assertTrue(second.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    second.release();
    assertEquals(0, first.getParticipantNodes().size());
  }

  @Test
  void reentrantCountMatchesAcquiresAndAnExtraReleaseThrows() throws Exception {
    InterProcessMutex lock = new InterProcessMutex(clients.newClient(), path);
    InterProcessMutex other = new InterProcessMutex(clients.newClient(), path);
    for (int i = 0; i < 3; i++) {
      assertTrue(lock.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    }
    assertEquals(1, lock.getParticipantNodes().size());
    lock.release();
    lock.release();
    assertTrue(lock.isOwnedByCurrentThread());
    assertFalse(other.acquire(0, TimeUnit.SECONDS));
    lock.release();
    assertFalse(lock.isAcquiredInThisProcess());
    assertThrows(IllegalMonitorStateException.class, lock::release);
    assertTrue(other.acquire(-1, TimeUnit.SECONDS), "a negative timeout is one try");
    other.release();
  }

  @Test
  void closingTheHoldersClientLetsTheWaiterAcquire() throws Exception {
    CoordinationClient holderClient = clients.newClient();
    InterProcessMutex holder = new InterProcessMutex(holderClient, path);
    InterProcessMutex waiter = new InterProcessMutex(clients.newClient(), path);
    holder.acquire();
    Future<Boolean> waiting = clients.threads().submit(() -> {
      boolean got = waiter.acquire(seconds(PATIENCE), TimeUnit.SECONDS);
      waiter.release();
      return got;
    });
    await().atMost(PATIENCE).until(() -> waiter.getParticipantNodes().size() == 2);
    holderClient.close();
    assertTrue(waiting.get(seconds(PATIENCE), TimeUnit.SECONDS));
  }

  @Test
  void lockHeldAcrossAServerRestartLeavesNoDuplicateNode() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessMutex lock = new InterProcessMutex(client, path);
    lock.acquire();
    server.restart();
    await().atMost(PATIENCE).until(() -> client.state().isConnected());
    assertTrue(lock.isOwnedByCurrentThread());
    assertEquals(1, lock.getParticipantNodes().size());
    lock.release();
    assertEquals(0, lock.getParticipantNodes().size());
    lock.acquire();
    assertEquals(1, lock.getParticipantNodes().size());
    lock.release();
  }

  @Test
  void waiterOfOneClientAcquiresAfterItsSessionWasKilledWhileAnotherObjectHeldTheLock() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessMutex first = new InterProcessMutex(client, path);
    InterProcessMutex second = new InterProcessMutex(client, path);
    first.acquire();
    Future<Boolean> waiting = clients.threads().submit(() -> {
      boolean got = second.acquire(seconds(PATIENCE), TimeUnit.SECONDS);
      second.release();
      return got;
    });
    await().atMost(PATIENCE).until(() -> first.getParticipantNodes().size() == 2);
    long old = client.sessionId();
    server.expireSession(old);
    assertTrue(waiting.get(seconds(PATIENCE), TimeUnit.SECONDS), "the waiter queues again in the new session");
    first.release(); // clears the lost hold
  }

  @Test
  void readLockIsReentrantAndTheWriterCanDowngradeButAReaderCannotUpgrade() throws Exception {
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(clients.newClient(), path);
    rw.readLock().acquire();
    rw.readLock().acquire();
    assertFalse(rw.writeLock().acquire(200, TimeUnit.MILLISECONDS), "upgrade waits for its own read");
    rw.readLock().release();
    rw.readLock().release();
    assertEquals(0, rw.readLock().getParticipantNodes().size());
    rw.writeLock().acquire();
    rw.writeLock().acquire();
    assertTrue(rw.readLock().acquire(0, TimeUnit.SECONDS));
    rw.writeLock().release();
    rw.writeLock().release();
    InterProcessReadWriteLock other = new InterProcessReadWriteLock(clients.newClient(), path);
    assertFalse(other.writeLock().acquire(200, TimeUnit.MILLISECONDS));
    assertTrue(other.readLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    other.readLock().release();
    rw.readLock().release();
    assertTrue(other.writeLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    other.writeLock().release();
  }

  @Test
  void readAndWriteLocksListOnlyTheirOwnParticipantNodes() throws Exception {
    int readers = 3;
    int writers = 2;
    CoordinationClient client = clients.newClient();
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, path);
    CountDownLatch done = new CountDownLatch(1);
    List<Future<?>> all = new ArrayList<>();
    for (int i = 0; i < readers; i++) {
      all.add(clients.threads().submit(() -> {
        rw.readLock().acquire();
        try {
          done.await();
        } finally {
          rw.readLock().release();
        }
        return null;
      }));
    }
    await().atMost(PATIENCE).until(() -> rw.readLock().getParticipantNodes().size() == readers);
    for (int i = 0; i < writers; i++) {
      all.add(clients.threads().submit(() -> {
        rw.writeLock().acquire();
        rw.writeLock().release();
        return null;
      }));
    }
    await().atMost(PATIENCE).until(() -> rw.writeLock().getParticipantNodes().size() == writers);
    assertEquals(readers, rw.readLock().getParticipantNodes().size());
    done.countDown();
    for (Future<?> f : all) {
      f.get(seconds(PATIENCE), TimeUnit.SECONDS);
    }
  }

  @Test
  void readWriteLockNodesHoldTheGivenDataAsItWasWhenTheLockWasMade() throws Exception {
    CoordinationClient client = clients.newClient();
    byte[] data = {1, 2, 3, 4};
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, path, data);
    data[0] = 5;
    rw.writeLock().acquire();
    try {
      assertArrayEquals(new byte[] {1, 2, 3, 4}, client.getData(rw.writeLock().getLockPath()).data());
      assertEquals(List.of(rw.writeLock().getLockPath()), rw.writeLock().getParticipantNodes());
    } finally {
      rw.writeLock().release();
    }
    assertThrows(IllegalMonitorStateException.class, () -> rw.writeLock().getLockPath());
  }

  @Test
  void aWriteLockLostWithItsSessionStillNamesItsGoneNodeAndLetsAReaderIn() throws Exception {
    CoordinationClient writerClient = clients.newClient();
    InterProcessReadWriteLock writerSide = new InterProcessReadWriteLock(writerClient, path);
    InterProcessReadWriteLock readerSide = new InterProcessReadWriteLock(clients.newClient(), path);
    writerSide.writeLock().acquire();
    String node = writerSide.writeLock().getLockPath();
    server.expireSession(writerClient.sessionId());
    assertTrue(readerSide.readLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    assertEquals(node, writerSide.writeLock().getLockPath());
    await().atMost(PATIENCE).until(() -> writerClient.state().isConnected());
    assertThrows(NoNodeException.class, () -> writerClient.getData(node));
    readerSide.readLock().release();
    writerSide.writeLock().release();
  }

  @Test
  void leasesOfAClosedClientAreReturned() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, 2);
    Collection<Lease> leases = semaphore.acquire(2);
    assertEquals(2, semaphore.getParticipantNodes().size());
    InterProcessSemaphoreV2 other = new InterProcessSemaphoreV2(clients.newClient(), path, 2);
    assertTrue(other.acquire(0, TimeUnit.SECONDS).isEmpty());
    client.close();
    Lease lease = other.acquire(seconds(PATIENCE), TimeUnit.SECONDS).orElseThrow();
    assertEquals(1, other.getParticipantNodes().size());
    lease.close();
    assertEquals(2, leases.size());
  }

  @Test
  void semaphoreWaiterAcquiresAfterItsSessionWasKilled() throws Exception {
    CoordinationClient client = clients.newClient();
    InterProcessSemaphoreV2 holder = new InterProcessSemaphoreV2(clients.newClient(), path, 1);
    Lease held = holder.acquire();
    InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, path, 1);
    Future<Boolean> waiting = clients.threads().submit(() -> {
      try (Lease lease = semaphore.acquire(seconds(PATIENCE), TimeUnit.SECONDS).orElseThrow()) {
        return true;
      }
    });
    // the holder's lease, the waiter's place in the queue and its lease node
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(client, path) == 3);
    long old = client.sessionId();
    server.expireSession(old);
    await().atMost(PATIENCE).until(() -> client.sessionId() != old && client.state().isConnected()
        && Clients.lockNodesUnder(client, path) == 3);
    held.close();
    assertTrue(waiting.get(seconds(PATIENCE), TimeUnit.SECONDS));
  }
}
