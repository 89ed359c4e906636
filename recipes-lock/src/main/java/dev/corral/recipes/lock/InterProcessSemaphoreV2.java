package dev.corral.recipes.lock;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.NoNodeException;
import dev.corral.client.Paths;
import dev.corral.client.SequentialNames;
import dev.corral.client.SessionExpiredException;
import dev.corral.recipes.shared.SharedCountReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A counting semaphore across processes, as Curator's
 * {@code InterProcessSemaphoreV2}: at most {@code maxLeases} leases are out at
 * once, across every process using the same path; {@code maxLeases} is a
 * number, or what a {@link dev.corral.recipes.shared.SharedCount} holds.
 *
 * <p>Waiters queue fairly on an internal {@link InterProcessMutex}
 * ({@code path/locks}); only its holder may add a lease node under
 * {@code path/leases}, and it is granted while at most {@code maxLeases} lease
 * nodes exist (its own included); otherwise it, and no one else, waits for a
 * lease to go. So a returned lease wakes one waiter, and a lease held by
 * a process whose session ends (its node goes with it) frees its slot.
 * Both paths are containers, gone when unused.
 *
 * <p>A waiter whose session ends while it waits (its nodes go with it) is
 * never granted on those nodes: it queues again in the new session, until its
 * deadline. A lease may be returned from any thread. Acquiring more than one lease
 * takes them one at a time; if that fails or times out part-way, the leases
 * already taken are returned. A failed or timed-out acquire leaves no node.
 * {@link #state()} and {@link #addListener} report the connection of the
 * session holding the leases, as for locks (see {@link LockState}).
 */
public final class InterProcessSemaphoreV2 {
  private static final Logger LOG = LoggerFactory.getLogger(InterProcessSemaphoreV2.class);
  private static final String LEASE_NAME = "lease-";

  private final CoordinationClient client;
  private final String path;
  private final IntSupplier maxLeases;
  private final String limit; // how toString names it
  private final boolean fixed; // a number of leases, not a shared count
  private final InterProcessMutex queue;
  private final LockDriver leases;
  private final HoldTracker tracker;
  private final Nudges nudges;
  private volatile byte[] nodeData = new byte[0];

  /**
   * A semaphore on {@code path} with {@code maxLeases} leases.
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, is the root, or {@code maxLeases < 1}
   */
  public InterProcessSemaphoreV2(CoordinationClient client, String path, int maxLeases) {
    this(client, path, atLeastOne(maxLeases), maxLeases + " leases", true, new Nudges());
  }

  /**
   * A semaphore on {@code path} with as many leases as {@code count} holds
   * (Curator's constructor with a SharedCountReader): when the count grows,
   * waiters look again at once; when it shrinks, leases out stay out, and
   * new ones wait until fewer than the count are out.
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, or is the root
   */
  public InterProcessSemaphoreV2(CoordinationClient client, String path, SharedCountReader count) {
    this(client, path, Objects.requireNonNull(count, "count")::getCount, "leases as " + count, false, new Nudges());
    count.addListener((changed, newCount) -> nudges.nudge());
  }

  private InterProcessSemaphoreV2(CoordinationClient client, String path, IntSupplier maxLeases, String limit,
      boolean fixed, Nudges nudges) {
    this.client = LockPaths.check(client);
    this.path = LockPaths.check(path);
    this.maxLeases = maxLeases;
    this.limit = limit;
    this.fixed = fixed;
    this.nudges = nudges;
    this.queue = new InterProcessMutex(client, Paths.join(path, "locks"));
    // every sequential node under leases/ counts against the limit, as in Curator; only the holder of the queue
    // may add a lease node: a lost one queues again from the start
    this.leases = new LockDriver(client, Paths.join(path, "leases"), () -> LEASE_NAME, OrderingRule.atMost(maxLeases),
        name -> true, false, nudges);
    this.tracker = new HoldTracker(client, path);
  }

  private static IntSupplier atLeastOne(int maxLeases) {
    if (maxLeases < 1) {
      throw new IllegalArgumentException("maxLeases must be at least 1, not " + maxLeases);
    }
    return () -> maxLeases;
  }

  /** Data for the nodes of leases acquired from now on (empty by default). */
  public void setNodeData(byte[] data) {
    this.nodeData = data.clone();
  }

  /** Blocks until a lease is acquired. */
  public Lease acquire() throws CoordinationException, InterruptedException {
    return acquire(1).iterator().next();
  }

  /**
   * Blocks until {@code qty} leases are acquired.
   *
   * @throws IllegalArgumentException if {@code qty} is not in [1, maxLeases] (for a shared count: below 1)
   */
  public Collection<Lease> acquire(int qty) throws CoordinationException, InterruptedException {
    return acquire(qty, Deadline.never()).orElseThrow(
        () -> new IllegalStateException("an acquire without a deadline returned without leases"));
  }

  /** A lease if one could be acquired within {@code time}; empty (leaving no node) otherwise. */
  public Optional<Lease> acquire(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return acquire(1, time, unit).map(taken -> taken.iterator().next());
  }

  /**
   * {@code qty} leases if they could all be acquired within {@code time};
   * empty otherwise, with none kept and no node left.
   *
   * @throws IllegalArgumentException if {@code qty} is not in [1, maxLeases] (for a shared count: below 1)
   */
  public Optional<Collection<Lease>> acquire(int qty, long time, TimeUnit unit)
      throws CoordinationException, InterruptedException {
    return acquire(qty, Deadline.after(time, unit));
  }

  private Optional<Collection<Lease>> acquire(int qty, Deadline deadline)
      throws CoordinationException, InterruptedException {
    if (qty < 1 || (fixed && qty > maxLeases.getAsInt())) {
      throw new IllegalArgumentException("qty must be in [1, " + maxLeases.getAsInt() + "], not " + qty);
    }
    List<Lease> taken = new ArrayList<>(qty);
    try {
      for (int i = 0; i < qty; i++) {
        Optional<LeaseImpl> lease = acquireOne(deadline);
        if (lease.isEmpty()) {
          returnAll(taken);
          return Optional.empty();
        }
        taken.add(lease.get());
      }
    } catch (Throwable failure) {
      try {
        returnAll(taken);
      } catch (Throwable cleanup) {
        failure.addSuppressed(cleanup);
      }
      throw failure;
    }
    return Optional.of(List.copyOf(taken));
  }

  /** One lease: queue on the internal mutex, then add a lease node and wait for a free slot. */
  Optional<LeaseImpl> acquireOne(Deadline deadline) throws CoordinationException, InterruptedException {
    while (true) {
      if (!queue.acquire(deadline)) {
        return Optional.empty();
      }
      Optional<LeaseImpl> lease;
      try {
        lease = takeSlot(deadline);
      } catch (Throwable failure) {
        try {
          queue.release();
        } catch (Throwable cleanup) {
          failure.addSuppressed(cleanup);
        }
        if ((failure instanceof SessionExpiredException || failure instanceof NoNodeException) && !deadline.expired()) {
          // the lease node (and our place in the queue) went with the session: queue again, as a lock waiter does
          continue;
        }
        throw failure;
      }
      leaveQueue(lease.isPresent());
      return lease;
    }
  }

  /** For the holder of the internal mutex: adds a lease node and waits until it is among the allowed ones. */
  private Optional<LeaseImpl> takeSlot(Deadline deadline) throws CoordinationException, InterruptedException {
    tracker.enter();
    Optional<LockDriver.Granted> granted;
    try {
      granted = leases.acquire(deadline, nodeData);
    } catch (Throwable failure) {
      tracker.exit();
      throw failure;
    }
    if (granted.isEmpty()) {
      tracker.exit();
      return Optional.empty();
    }
    LockDriver.Granted node = granted.get();
    return Optional.of(new LeaseImpl(tracker.granted(node.path(), node.token(), node.session(),
        Thread.currentThread())));
  }

  /** Releases the internal mutex; once a lease is granted, a failure here is logged, not thrown (it is retried in the background). */
  private void leaveQueue(boolean granted) throws CoordinationException, InterruptedException {
    try {
      queue.release();
    } catch (CoordinationException | InterruptedException e) {
      if (!granted) {
        throw e;
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.warn("could not release the queue lock of semaphore {} at once; retrying in the background", path, e);
    }
  }

  /**
   * Returns a lease: its node is deleted. Returning a lease twice is harmless.
   * As in Curator, a lease stands on its own: one from another semaphore object
   * (on this path or another) is returned to the semaphore that granted it.
   *
   * @throws IllegalArgumentException if the lease is not one a semaphore granted
   */
  public void returnLease(Lease lease) throws CoordinationException, InterruptedException {
    if (!(lease instanceof LeaseImpl own)) {
      throw new IllegalArgumentException("not a lease granted by a semaphore: " + lease);
    }
    own.semaphore().returnOwn(own);
  }

  private void returnOwn(LeaseImpl own) throws CoordinationException, InterruptedException {
    if (own.returned.compareAndSet(false, true)) {
      Releases.release(client, tracker, own.hold);
    }
  }

  /** Returns every lease (all are tried; the first failure is thrown, later ones suppressed). */
  public void returnAll(Collection<Lease> leases) throws CoordinationException, InterruptedException {
    Exception first = null;
    for (Lease lease : leases) {
      try {
        returnLease(lease);
      } catch (CoordinationException | InterruptedException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first instanceof CoordinationException ce) {
      throw ce;
    }
    if (first instanceof InterruptedException ie) {
      throw ie;
    }
  }

  /**
   * The names of the lease nodes (not their paths: the children of the leases
   * node, as Curator's), in sequence order.
   */
  public List<String> getParticipantNodes() throws CoordinationException, InterruptedException {
    try {
      return SequentialNames.sorted(client.getChildren(leases.dir()));
    } catch (NoNodeException none) {
      return List.of();
    }
  }

  /** The state of this process's leases (NOT_HELD when it holds none). */
  public LockState state() {
    return tracker.state();
  }

  /** Adds a listener told of state changes while this process holds leases. */
  public void addListener(LockStateListener listener) {
    tracker.addListener(listener);
  }

  /** Removes a listener added with {@link #addListener}. */
  public void removeListener(LockStateListener listener) {
    tracker.removeListener(listener);
  }

  boolean isHeld(LeaseImpl lease) {
    return !lease.returned.get() && !lease.hold.isLost(client);
  }

  @Override
  public String toString() {
    return "InterProcessSemaphoreV2[" + path + ", " + limit + "]";
  }

  /** A lease: its hold, and whether it was returned. */
  final class LeaseImpl implements Lease {
    final Hold hold;
    final AtomicBoolean returned = new AtomicBoolean();

    LeaseImpl(Hold hold) {
      this.hold = hold;
    }

    InterProcessSemaphoreV2 semaphore() {
      return InterProcessSemaphoreV2.this;
    }

    @Override
    public void close() throws CoordinationException, InterruptedException {
      returnLease(this);
    }

    @Override
    public byte[] getData() throws CoordinationException, InterruptedException {
      return client.getData(hold.path()).data();
    }

    @Override
    public String getNodeName() {
      return Paths.name(hold.path());
    }

    @Override
    public String toString() {
      return "Lease[" + hold.path() + "]";
    }
  }
}
