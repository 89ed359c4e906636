package dev.corral.recipes.lock;

/**
 * Told when a lock held by this process changes {@link LockState}: to
 * {@link LockState#SUSPENDED} when the connection breaks, back to
 * {@link LockState#HELD} when the same session is resumed, to
 * {@link LockState#LOST} when the session ends. Called on the client's
 * connection-state thread, in order: must not block (hand long work to another thread).
 */
@FunctionalInterface
public interface LockStateListener {
  void stateChanged(LockState newState);
}
