package dev.corral.recipes.lock;

/**
 * What a lock (or a semaphore's leases) held by this process can be relied on
 * for. The client decides SUSPENDED versus LOST once, for every recipe; the
 * lock only reports it.
 */
public enum LockState {
  /** This process holds nothing here. */
  NOT_HELD,
  /** Held, with the session connected: safe to rely on (and to pass its fencing token on). */
  HELD,
  /**
   * Held, but the connection is down: the session may still be alive, or may
   * be expiring, in which case another process will soon get the lock. Stop
   * relying on the lock: pause the work it guards until the state is
   * {@link #HELD} again (the client reconnected to the same session), and let
   * the protected resource check the fencing token.
   */
  SUSPENDED,
  /**
   * The session ended while the lock was held: the lock node is gone and
   * another process may hold the lock now. Stop the guarded work at once (its
   * writes carry a stale fencing token), then call {@code release()} to clear
   * the local state; acquire again if needed.
   */
  LOST
}
