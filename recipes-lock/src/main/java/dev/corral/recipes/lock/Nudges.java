package dev.corral.recipes.lock;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Wakes the waiters of a lock path for a reason other than its children
 * changing: a semaphore's shared count grew, so more leases may be out.
 */
final class Nudges {
  private final Set<Runnable> waiting = ConcurrentHashMap.newKeySet();

  /** Wakes every waiter; each looks at the lock path again. */
  void nudge() {
    waiting.forEach(Runnable::run);
  }

  void add(Runnable wake) {
    waiting.add(wake);
  }

  void remove(Runnable wake) {
    waiting.remove(wake);
  }
}
