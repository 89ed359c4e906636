package dev.corral.recipes.lock;

import dev.corral.client.CoordinationException;
import java.util.concurrent.TimeUnit;

/**
 * A lock shared by processes through a Corral lock path, as Curator's
 * {@code InterProcessLock}, with a fencing token and a reported
 * {@link LockState}.
 *
 * <pre>{@code
 * InterProcessLock lock = new InterProcessMutex(client, "/locks/orders");
 * if (lock.acquire(10, TimeUnit.SECONDS)) {
 *   try {
 *     store.write(record, lock.fencingToken());
 *   } finally {
 *     lock.release();
 *   }
 * }
 * }</pre>
 *
 * <p><b>When the connection fails</b> (see {@link LockState}): on SUSPENDED
 * stop relying on the lock and pause the guarded work until HELD again; on
 * LOST the lock is gone (another process may hold it), {@link #isAcquiredInThisProcess()}
 * turns false, and the holder should stop and {@link #release()}. Watch it with
 * {@link #addListener}, or poll {@link #state()}. When the client declares
 * the session lost on its own (no server reachable for a whole session
 * timeout), the server may keep the old node until it expires that session
 * itself; no other process gets the lock before then. Because a pause (GC, network)
 * can always outlast the session without the holder noticing in time, give
 * the protected resource the {@link #fencingToken()} with every write.
 */
public interface InterProcessLock {

  /** Blocks until the lock is acquired. */
  void acquire() throws CoordinationException, InterruptedException;

  /**
   * Acquires the lock if it can within {@code time}; false if the time passed
   * first, in which case this attempt's lock node is already removed (or, if
   * the server cannot be reached, being removed in the background).
   */
  boolean acquire(long time, TimeUnit unit) throws CoordinationException, InterruptedException;

  /**
   * Releases the lock (for a reentrant lock: the matching entry; the lock
   * goes when every entry is released).
   *
   * <p>The lock counts as released only once the server confirmed the
   * delete of its node. If the server cannot be reached, the delete waits for
   * a connection as any call does (at most the client's connection timeout);
   * if the session is declared lost meanwhile, the release just clears the
   * local state (the node goes with the session). Otherwise this throws the
   * failure (usually {@code ConnectionLossException}) and keeps deleting the
   * node in the background until it is gone or the session has ended. Either
   * way the calling thread no longer holds the lock once release() returns or
   * throws (as in Curator, {@link #isAcquiredInThisProcess()} is then false
   * unless another thread holds it: do not call release() again), though the
   * node may outlive it a while.
   * Releasing a lock lost with its session just clears the local state.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock
   *     ({@link InterProcessSemaphoreMutex}, which any thread may release, as
   *     Curator's: {@link IllegalStateException} if it is not held)
   */
  void release() throws CoordinationException, InterruptedException;

  /**
   * True while any thread of this process holds the lock through this object
   * and its session has not ended; false from the moment the holder calls
   * release(), as in Curator, so that {@code if (lock.isAcquiredInThisProcess())
   * lock.release()} is safe after a release that threw.
   */
  boolean isAcquiredInThisProcess();

  /** True if the calling thread holds the lock and its session has not ended. */
  boolean isOwnedByCurrentThread();

  /**
   * The fencing token of the calling thread's hold: the creation zxid of its
   * lock node. Tokens strictly increase from one holder of the lock to the
   * next, across processes and sessions.
   *
   * <p>Pass it with every write to the resource the lock protects. The
   * resource stores the highest token it has seen and rejects a write that
   * carries a lower one: a holder that was paused past its session (and so
   * past its lock) cannot then overwrite the work of the next holder.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock, or it was lost
   */
  long fencingToken();

  /** The lock's state in this process (NOT_HELD when no thread holds it here). */
  LockState state();

  /** Adds a listener told of this lock's state changes while it is held. */
  void addListener(LockStateListener listener);

  /** Removes a listener added with {@link #addListener}. */
  void removeListener(LockStateListener listener);
}
