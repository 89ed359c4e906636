package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.CoordinationClient;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Readers share, a writer excludes, a waiting writer is not starved, and the write lock downgrades. */
class InterProcessReadWriteLockTest extends ServerTest {

  private InterProcessReadWriteLock newLock() throws InterruptedException {
    return new InterProcessReadWriteLock(clients.newClient(), path);
  }

  @Test
  void readersHoldTheLockTogether() throws Exception {
    InterProcessMutex first = newLock().readLock();
    InterProcessMutex second = newLock().readLock();
    first.acquire();
    assertTrue(second.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    assertTrue(first.isOwnedByCurrentThread() && second.isOwnedByCurrentThread());
    first.release();
    second.release();
  }

  @Test
  void aSequentialNodeOfAnotherKindUnderTheLockPathIsNotInTheWay() throws Exception {
    createQueueItem();
    InterProcessReadWriteLock lock = newLock();

    assertTrue(lock.writeLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    lock.writeLock().release();
    assertTrue(lock.readLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    lock.readLock().release();
  }

  @Test
  void writerExcludesReadersAndReadersExcludeWriter() throws Exception {
    InterProcessMutex reader = newLock().readLock();
    InterProcessMutex writer = newLock().writeLock();
    reader.acquire();
    assertFalse(writer.acquire(300, TimeUnit.MILLISECONDS));
    reader.release();
    assertTrue(writer.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    assertFalse(reader.acquire(300, TimeUnit.MILLISECONDS));
    writer.release();
    assertTrue(reader.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    reader.release();
  }

  @Test
  void waitingWriterBlocksLaterReaders() throws Exception {
    CoordinationClient observer = clients.newClient();
    InterProcessMutex earlyReader = newLock().readLock();
    InterProcessMutex writer = newLock().writeLock();
    InterProcessMutex lateReader = newLock().readLock();
    earlyReader.acquire();
    Future<?> writing = clients.threads().submit(() -> {
      assertTrue(writer.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      try {
        assertFalse(lateReader.isAcquiredInThisProcess(), "no reader holds the lock while the writer does");
      } finally {
        writer.release();
      }
      return null;
    });
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, path) == 2);
    assertFalse(lateReader.acquire(300, TimeUnit.MILLISECONDS), "a later reader waits behind the waiting writer");
    Future<?> reading = clients.threads().submit(() -> {
      assertTrue(lateReader.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      lateReader.release();
      return null;
    });
    await().atMost(PATIENCE).until(() -> Clients.lockNodesUnder(observer, path) == 3);
    earlyReader.release();
    writing.get(seconds(PATIENCE), TimeUnit.SECONDS);
    reading.get(seconds(PATIENCE), TimeUnit.SECONDS);
  }

  @Test
  void writeLockDowngradesToReadLock() throws Exception {
    InterProcessReadWriteLock lock = newLock();
    InterProcessMutex otherReader = newLock().readLock();
    InterProcessMutex otherWriter = newLock().writeLock();
    lock.writeLock().acquire();
    assertFalse(otherReader.acquire(300, TimeUnit.MILLISECONDS));
    assertTrue(lock.readLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS), "the writer may take the read lock");
    lock.writeLock().release();
    assertTrue(lock.readLock().isOwnedByCurrentThread());
    assertTrue(otherReader.acquire(seconds(PATIENCE), TimeUnit.SECONDS), "readers share with the downgraded holder");
    assertFalse(otherWriter.acquire(300, TimeUnit.MILLISECONDS), "writers still wait");
    otherReader.release();
    lock.readLock().release();
    assertTrue(otherWriter.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    otherWriter.release();
  }

  @Test
  void downgradedHolderIsNotOvertakenByAWriterThatWasWaiting() throws Exception {
    InterProcessReadWriteLock lock = newLock();
    CountingClient waitingClient = clients.newCountingClient();
    InterProcessMutex waitingWriter = new InterProcessReadWriteLock(waitingClient.client(), path).writeLock();
    AtomicBoolean readerReleasing = new AtomicBoolean();
    lock.writeLock().acquire();
    Future<?> writing = clients.threads().submit(() -> {
      assertTrue(waitingWriter.acquire(seconds(PATIENCE), TimeUnit.SECONDS));
      try {
        assertTrue(readerReleasing.get(), "the downgraded reader was done before the writer got the lock");
      } finally {
        waitingWriter.release();
      }
      return null;
    });
    await().atMost(PATIENCE).until(() -> waitingClient.calls("exists") == 1); // watching the holder's node
    assertTrue(lock.readLock().acquire(seconds(PATIENCE), TimeUnit.SECONDS));
    lock.writeLock().release();
    // the waiting writer wakes, looks again, and must wait for the downgraded read node
    await().atMost(PATIENCE).until(() -> waitingClient.watchEvents() == 1 && waitingClient.calls("exists") >= 2);
    assertFalse(waitingWriter.isAcquiredInThisProcess());
    readerReleasing.set(true);
    lock.readLock().release();
    writing.get(seconds(PATIENCE), TimeUnit.SECONDS);
  }

  @Test
  void readAndWriteTokensIncreaseAcrossHolders() throws Exception {
    InterProcessMutex reader = newLock().readLock();
    InterProcessMutex writer = newLock().writeLock();
    reader.acquire();
    long readToken = reader.fencingToken();
    reader.release();
    writer.acquire();
    long writeToken = writer.fencingToken();
    writer.release();
    assertTrue(writeToken > readToken);
  }
}
