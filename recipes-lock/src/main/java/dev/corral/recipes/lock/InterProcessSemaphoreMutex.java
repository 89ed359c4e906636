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
 * out) like anyone else's. Only the acquiring thread may release it; its
 * fencing token is the lease node's creation zxid, increasing from holder to
 * holder. See {@link InterProcessLock} for release, fencing and connection loss.
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

  @Override
  public void release() throws CoordinationException, InterruptedException {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    if (held == null || held.hold.owner() != Thread.currentThread() || !lease.compareAndSet(held, null)) {
      throw new IllegalMonitorStateException("the calling thread does not hold the lock " + path);
    }
    semaphore.returnLease(held);
  }

  @Override
  public boolean isAcquiredInThisProcess() {
    return semaphore.anyHeld();
  }

  @Override
  public boolean isOwnedByCurrentThread() {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    return held != null && held.hold.owner() == Thread.currentThread() && semaphore.isHeld(held);
  }

  @Override
  public long fencingToken() {
    InterProcessSemaphoreV2.LeaseImpl held = lease.get();
    if (held == null || held.hold.owner() != Thread.currentThread()) {
      throw new IllegalMonitorStateException("the calling thread does not hold the lock " + path);
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
