package dev.corral.recipes.lock;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A mutex that is not reentrant, as Curator's
 * {@code InterProcessSemaphoreMutex}: an {@link InterProcessSemaphoreV2} with
 * one lease. A second acquire by the thread that holds it waits (or times
 * out) like anyone else's. As Curator's, any thread of the process may
 * release it (async code acquires on one thread and releases on another) and
 * read its fencing token, the lease node's creation zxid, increasing from
 * holder to holder; releasing it when it is not held throws
 * {@link IllegalStateException}, as Curator's does. See {@link InterProcessLock}
 * for release, fencing and connection loss.
 */
public final class InterProcessSemaphoreMutex implements InterProcessLock {
  private final String path;
  private final InterProcessSemaphoreV2 semaphore;
  private final AtomicReference<InterProcessSemaphoreV2.LeaseImpl> lease = new AtomicReference<>();

  /**
   * A non-reentrant mutex on {@code path} (created on first use, as containers).
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, or is the root
   */
  public InterProcessSemaphoreMutex(CoordinationClient client, String path) {
    this.path = path;
    this.semaphore = new InterProcessSemaphoreV2(client, path, 1);
  }

  @Override
  public void acquire() throws CoordinationException, InterruptedException {
    if (!acquire(Deadline.never())) {
      throw new IllegalStateException("an acquire without a deadline returned without the lock");
    }
  }

  @Override
  public boolean acquire(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return acquire(Deadline.after(time, unit));
  }

  private boolean acquire(Deadline deadline) throws CoordinationException, InterruptedException {
    Optional<InterProcessSemaphoreV2.LeaseImpl> taken = semaphore.acquireOne(deadline);
    taken.ifPresent(lease::set);
    return taken.isPresent();
  }

  /**
   * Releases the lock, from any thread.
   *
   * @throws IllegalStateException if the lock is not held in this process
   */
  @Override
  public void release() throws CoordinationException, InterruptedException {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    if (held == null || !lease.compareAndSet(held, null)) {
      throw new IllegalStateException("the lock " + path + " is not acquired");
    }
    semaphore.returnLease(held);
  }

  @Override
  public boolean isAcquiredInThisProcess() {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    return held != null && semaphore.isHeld(held);
  }

  @Override
  public boolean isOwnedByCurrentThread() {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    return held != null && held.hold.owner() == Thread.currentThread() && semaphore.isHeld(held);
  }

  /**
   * The holder's fencing token, from any thread.
   *
   * @throws IllegalStateException if the lock is not held in this process
   * @throws IllegalMonitorStateException if it was lost with its session
   */
  @Override
  public long fencingToken() {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    if (held == null) {
      throw new IllegalStateException("the lock " + path + " is not acquired");
    }
    if (!semaphore.isHeld(held)) {
      throw new IllegalMonitorStateException("the lock " + path + " was lost with its session");
    }
    return held.hold.token();
  }

  @Override
  public LockState state() {
    return semaphore.state();
  }

  @Override
  public void addListener(LockStateListener listener) {
    semaphore.addListener(listener);
  }

  @Override
  public void removeListener(LockStateListener listener) {
    semaphore.removeListener(listener);
  }

  @Override
  public String toString() {
    return "InterProcessSemaphoreMutex[" + path + "]";
  }
}
