package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;

class InterProcessMutexContractTest extends LockContractTest {
  @Override
  InterProcessLock newLock(CoordinationClient client, String path) {
    return new InterProcessMutex(client, path);
  }

  @Override
  boolean reentrant() {
    return true;
  }
}
