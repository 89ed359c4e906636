package dev.corral.recipes.barrier;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.recipe.Signal;
import dev.corral.client.ClientClosedException;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeExistsException;
import dev.corral.client.PathRules;
import dev.corral.client.SessionExpiredException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A barrier, as Curator's {@code DistributedBarrier}: while its node exists,
 * {@link #waitOnBarrier()} blocks; removing the node releases every waiter.
 *
 * <p>The node is persistent (missing ancestors are created as containers), so
 * the barrier outlives the session that set it. Waiters leave a watch on the
 * node and check again whenever it fires or the connection state changes; a
 * broken connection makes them wait for the client to reconnect rather than
 * fail, and a timed wait returns false at its deadline, connected or not.
 * Holds no state of its own: thread-safe, and any number of instances may
 * share one path.
 */
public final class DistributedBarrier {
  private static final byte[] NO_DATA = new byte[0];
  private static final long MAX_RETRY_DELAY_MS = 1_000;
  private static final CreateOptions BARRIER_OPTIONS =
      CreateOptions.builder(CreateMode.PERSISTENT).creatingParentContainers().build();

  private final CoordinationClient client;
  private final String path;

  /** A barrier whose node is {@code path}. */
  public DistributedBarrier(CoordinationClient client, String path) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid barrier path: " + rule);
    });
  }

  /** Sets the barrier: creates its node (and missing ancestors). Already set is fine. */
  public void setBarrier() throws CoordinationException, InterruptedException {
    try {
      client.create(path, NO_DATA, BARRIER_OPTIONS);
    } catch (NodeExistsException alreadySet) {
      // fine
    }
  }

  /** Removes the barrier, releasing every waiter. Already removed is fine. */
  public void removeBarrier() throws CoordinationException, InterruptedException {
    try {
      client.delete(path);
    } catch (NoNodeException alreadyRemoved) {
      // fine
    }
  }

  /** Blocks until the barrier is removed (at once if it is not set). */
  public void waitOnBarrier() throws CoordinationException, InterruptedException {
    await(Deadline.never());
  }

  /**
   * Blocks until the barrier is removed, at most {@code time}. True if it was
   * seen removed; false if the time passed first (including time spent waiting
   * for a lost connection to come back).
   */
  public boolean waitOnBarrier(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return await(Deadline.after(time, unit));
  }

  private boolean await(Deadline deadline) throws CoordinationException, InterruptedException {
    long retryDelayMs = 0;
    boolean released = false;
    try (Signal signal = Signal.open(client)) {
      try {
        while (true) {
          long seen = signal.version();
          if (!deadline.awaitConnection(client)) {
            return false;
          }
          try {
            if (client.exists(path, signal).isEmpty()) {
              released = true;
              return true;
            }
            retryDelayMs = 0;
            if (!signal.awaitChange(seen, deadline.remainingNanos())) {
              return false;
            }
          } catch (CoordinationException e) {
            // the barrier is persistent: neither a broken connection nor a new session changes it
            if (e instanceof ClientClosedException || !(e.code().isRetryable() || e instanceof SessionExpiredException)) {
              throw e;
            }
            if (deadline.expired()) {
              return false;
            }
            retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, deadline.remainingNanos());
          }
        }
      } finally {
        if (!released) {
          signal.forget(path, signal);
        }
      }
    }
  }
}
