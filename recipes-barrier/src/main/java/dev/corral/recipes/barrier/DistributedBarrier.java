package dev.corral.recipes.barrier;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.recipe.Signal;
import dev.corral.client.ConnectionLossException;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeExistsException;
import dev.corral.client.PathRules;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.Stat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A barrier, as Curator's {@code DistributedBarrier}: while its node exists,
 * {@link #waitOnBarrier()} blocks; removing the node releases every waiter.
 *
 * <p>The node is persistent (missing ancestors are created as containers), so
 * the barrier outlives the session that set it. Waiters leave a watch on the
 * node and check it again whenever the watch fires or the connection state
 * changes. When the connection breaks, a waiter checks at once, and that check
 * waits for a connection as any call does (the client's connection timeout,
 * under its retry policy): if none comes, the wait fails with the check's
 * {@link ConnectionLossException}, as Curator's does; if the connection comes
 * back in time, the waiter goes on waiting (or returns, if the barrier was
 * removed meanwhile). A session lost meanwhile is no failure: the node does
 * not depend on it, so the waiter checks again in the client's new session.
 * A timed wait returns false at its deadline also while the server is
 * unreachable: a check sent while the connection is down is given up then.
 * Holds no state of its own: thread-safe, and any number of instances may
 * share one path.
 */
public final class DistributedBarrier {
  private static final byte[] NO_DATA = new byte[0];
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

  /**
   * Blocks until the barrier is removed (at once if it is not set).
   *
   * @throws ConnectionLossException if the connection broke while waiting and
   *     did not come back within the client's connection timeout
   */
  public void waitOnBarrier() throws CoordinationException, InterruptedException {
    await(Deadline.never());
  }

  /**
   * Blocks until the barrier is removed, at most {@code time}. True if it was
   * seen removed; false if the time passed first (also while the server is
   * unreachable).
   *
   * @throws ConnectionLossException if the connection broke while waiting and
   *     did not come back within the client's connection timeout, before the deadline
   */
  public boolean waitOnBarrier(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return await(Deadline.after(time, unit));
  }

  private boolean await(Deadline deadline) throws CoordinationException, InterruptedException {
    CompletableFuture<Optional<Stat>> check = null;
    try (Signal signal = Signal.open(client)) {
      try {
        while (true) {
          long seen = signal.version();
          // a check sent while connected is waited for as any call; one sent while not waits for a connection,
          // which a timed wait waits for only until its deadline
          long patience = client.state().isConnected() ? Long.MAX_VALUE : deadline.remainingNanos();
          check = client.async().exists(path, signal);
          Optional<Stat> node;
          try {
            node = answer(check, patience);
          } catch (SessionExpiredException lost) {
            continue; // the client opens a new session; the node, persistent, did not go with the old one
          } catch (TimeoutException disconnected) {
            return false;
          }
          if (node.isEmpty()) {
            return true;
          }
          if (!signal.awaitChange(seen, deadline.remainingNanos())) {
            return false;
          }
        }
      } finally {
        if (check != null) {
          // the last check left a watch (for the node's change, or for its creation when it found none): drop
          // it once the check is answered, since one given up at the deadline may still leave it
          check.whenComplete((node, failure) -> signal.forget(path, signal));
        }
      }
    }
  }

  /** The check's answer, or its failure; waits at most {@code nanos} ({@link Long#MAX_VALUE}: for ever). */
  private static Optional<Stat> answer(CompletableFuture<Optional<Stat>> check, long nanos)
      throws CoordinationException, InterruptedException, TimeoutException {
    try {
      return nanos == Long.MAX_VALUE ? check.get() : check.get(nanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CoordinationException failure) {
        throw failure;
      }
      throw new IllegalStateException("the check of the barrier failed unexpectedly", e.getCause());
    }
  }
}
