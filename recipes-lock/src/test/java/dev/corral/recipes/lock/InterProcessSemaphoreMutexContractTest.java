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
}
