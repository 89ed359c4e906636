package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;
import dev.corral.client.Paths;

/** The semaphore mutex is an InterProcessSemaphoreV2 with one lease: this also runs the contract on such a semaphore. */
class InterProcessSemaphoreMutexContractTest extends LockContractTest {
  @Override
  InterProcessLock newLock(CoordinationClient client, String path) {
    return new InterProcessSemaphoreMutex(client, path);
  }

  @Override
  String queuePath(String path) {
    return Paths.join(path, "locks");
  }

  @Override
  boolean reentrant() {
    return false;
  }

  /** Once by its predecessor in the queue, once by the lease it waits for. */
  @Override
  int wakeupsPerWaiter() {
    return 2;
  }

  /** As Curator's: async code acquires on one thread and releases on another. */
  @Override
  boolean anyThreadReleases() {
    return true;
  }

  /** As Curator's ("not acquired"). */
  @Override
  Class<? extends RuntimeException> notHeldFailure() {
    return IllegalStateException.class;
  }
}
