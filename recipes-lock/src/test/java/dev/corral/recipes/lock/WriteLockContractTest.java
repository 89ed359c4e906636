package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;

class WriteLockContractTest extends LockContractTest {
  @Override
  InterProcessLock newLock(CoordinationClient client, String path) {
    return new InterProcessReadWriteLock(client, path).writeLock();
  }

  @Override
  boolean reentrant() {
    return true;
  }
}
