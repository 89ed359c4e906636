package dev.corral.recipes.lock;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.NoNodeException;
import dev.corral.client.Paths;
import dev.corral.client.Protection;
import dev.corral.client.SequentialNames;
import dev.corral.client.SessionExpiredException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A fair, reentrant mutex across processes, as Curator's
 * {@code InterProcessMutex}: each acquire creates an ephemeral sequential node
 * under the lock path; the lowest sequence holds the lock; every other waiter
 * leaves a FIRST watch on its own node ({@link dev.corral.client.NodeTurn}),
 * which only the deletion of its immediate predecessor can fire, so a release
 * wakes exactly one waiter, and that waiter is granted by the event alone,
 * with no listing after it (Curator's waiter lists the children again).
 * Grants follow sequence order (first come, first served).
 *
 * <p>Uncontended, an acquire is one round trip: the node is created (with the
 * lock path as a container, gone with its last node) and its siblings listed
 * in one multi. The node carries a per-attempt GUID, so a reply lost with the
 * connection is recovered without a second node.
 *
 * <p>Reentrant per thread: a thread that holds the lock may acquire it again
 * and must release it as many times. Only the holding thread may release.
 * An acquire that fails for any reason (timeout, interrupt, connection loss)
 * removes its node. A waiter whose node is lost while it waits (its session
 * ended, or the node was deleted) is never granted on that node: as in
 * Curator, it queues again with a new node in the current session, until its
 * deadline. See {@link InterProcessLock} for release, fencing and connection loss.
 *
 * <p>Revocable as Curator's: after {@link #makeRevocable}, a holder is told
 * when another process asks it to give the lock up ({@link Revoker}).
 *
 * <p>Thread-safe. One object may be shared by the threads of a process.
 */
public final class InterProcessMutex implements InterProcessLock {
  private static final String LOCK_NAME = "lock-";
  private static final byte[] NO_DATA = new byte[0];

  private final CoordinationClient client;
  private final String path;
  private final LockDriver driver;
  private final HoldTracker tracker;
  private final ConcurrentMap<Thread, Hold> holds = new ConcurrentHashMap<>();
  private final Predicate<String> ours;
  private final byte[] data;
  private volatile Revocation<InterProcessMutex> revocation;

  /**
   * A mutex on {@code path} (created on first use, as a container).
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, or is the root
   */
  public InterProcessMutex(CoordinationClient client, String path) {
    this(client, path, () -> LOCK_NAME, OrderingRule.first(), InterProcessMutex::isLockNode,
        InterProcessMutex::isLockNode, NO_DATA);
  }

  /**
   * A lock on {@code path} whose nodes are named by {@code nodeName} (asked on the acquiring thread), ordered by
   * {@code rule} among the nodes whose (unprotected) name {@code ordered} accepts, hold {@code data}, and are this
   * lock's participants when {@code ours} accepts their name.
   */
  InterProcessMutex(CoordinationClient client, String path, Supplier<String> nodeName, OrderingRule rule,
      Predicate<String> ordered, Predicate<String> ours, byte[] data) {
    this.client = LockPaths.check(client);
    this.path = LockPaths.check(path);
    this.driver = new LockDriver(client, path, nodeName, rule, ordered, true);
    this.tracker = new HoldTracker(client, path);
    this.ours = ours;
    this.data = data.clone();
  }

  private static boolean isLockNode(String name) {
    return name.startsWith(LOCK_NAME);
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

  boolean acquire(Deadline deadline) throws CoordinationException, InterruptedException {
    Thread current = Thread.currentThread();
    Hold held = holds.get(current);
    if (held != null) {
      if (held.isLost(client)) {
        throw new SessionExpiredException("the lock " + path + " was lost with its session; release() it before"
            + " acquiring it again", null);
      }
      held.enter();
      return true;
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before acquiring " + path);
    }
    tracker.enter();
    Optional<LockDriver.Granted> granted;
    try {
      granted = driver.acquire(deadline, data);
    } catch (Throwable failure) {
      tracker.exit();
      throw failure;
    }
    if (granted.isEmpty()) {
      tracker.exit();
      return false;
    }
    LockDriver.Granted node = granted.get();
    holds.put(current, tracker.granted(node.path(), node.token(), node.session(), current));
    Revocation<InterProcessMutex> revocable = revocation;
    if (revocable != null) {
      revocable.watch(node.path());
    }
    return true;
  }

  /**
   * Makes the lock revocable, as Curator's {@code makeRevocable}: from its next grant on, when another process
   * calls {@link Revoker#attemptRevoke} on the node held here (also before the grant, while the node waited),
   * {@code listener} is told, on the client's event or callback thread; it must not block. Releasing stays the holding
   * thread's choice.
   */
  public void makeRevocable(RevocationListener<? super InterProcessMutex> listener) {
    makeRevocable(listener, Runnable::run);
  }

  /** As {@link #makeRevocable(RevocationListener)}, telling {@code listener} on {@code executor}. */
  public void makeRevocable(RevocationListener<? super InterProcessMutex> listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    revocation = new Revocation<>(client, this, listener, executor);
  }

  @Override
  public void release() throws CoordinationException, InterruptedException {
    Thread current = Thread.currentThread();
    Hold hold = holds.get(current);
    if (hold == null) {
      throw new IllegalMonitorStateException("the calling thread does not hold the lock " + path);
    }
    if (hold.exit() > 0) {
      return;
    }
    holds.remove(current);
    Releases.release(client, tracker, hold);
  }

  @Override
  public boolean isAcquiredInThisProcess() {
    return holds.values().stream().anyMatch(hold -> !hold.isLost(client));
  }

  @Override
  public boolean isOwnedByCurrentThread() {
    Hold hold = holds.get(Thread.currentThread());
    return hold != null && !hold.isLost(client);
  }

  @Override
  public long fencingToken() {
    Hold hold = holds.get(Thread.currentThread());
    if (hold == null) {
      throw new IllegalMonitorStateException("the calling thread does not hold the lock " + path);
    }
    if (hold.isLost(client)) {
      throw new IllegalMonitorStateException("the lock " + path + " was lost with its session");
    }
    return hold.token();
  }

  @Override
  public LockState state() {
    return tracker.state();
  }

  @Override
  public void addListener(LockStateListener listener) {
    tracker.addListener(listener);
  }

  @Override
  public void removeListener(LockStateListener listener) {
    tracker.removeListener(listener);
  }

  /**
   * This lock's nodes (full paths) in sequence order: the holder first, then the waiters. For the locks of an
   * {@link InterProcessReadWriteLock}, the read lock lists the read nodes and the write lock the write nodes.
   */
  public List<String> getParticipantNodes() throws CoordinationException, InterruptedException {
    try {
      return SequentialNames.sorted(client.getChildren(path)).stream()
          .filter(name -> ours.test(Protection.unprotected(name)))
          .map(name -> Paths.join(path, name)).toList();
    } catch (NoNodeException noLockPath) {
      return List.of();
    }
  }

  /**
   * The full path of the calling thread's lock node, as Curator's {@code getLockPath()}; also after the lock
   * was lost with its session (the node is then gone).
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold the lock
   */
  public String getLockPath() {
    Hold hold = holds.get(Thread.currentThread());
    if (hold == null) {
      throw new IllegalMonitorStateException("the calling thread does not hold the lock " + path);
    }
    return hold.path();
  }

  @Override
  public String toString() {
    return "InterProcessMutex[" + path + "]";
  }
}
