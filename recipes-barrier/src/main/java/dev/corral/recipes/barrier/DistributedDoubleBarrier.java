package dev.corral.recipes.barrier;

import dev.corral.client.recipe.BackgroundRetry;
import dev.corral.client.recipe.Deadline;
import dev.corral.client.recipe.Signal;
import dev.corral.client.ClientClosedException;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.EventType;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeExistsException;
import dev.corral.client.PathRules;
import dev.corral.client.Paths;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.Stat;
import dev.corral.client.Watcher;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A double barrier, as Curator's {@code DistributedDoubleBarrier}: members
 * {@link #enter()} and block until {@code memberQty} have entered, compute,
 * then {@link #leave()} and block until every member of the round has left.
 *
 * <p>Each entering member creates an EPHEMERAL node with a fresh UUID name
 * under the path (missing ancestors as containers). The member whose node
 * makes the count reach {@code memberQty} creates an ephemeral {@code ready}
 * node; every member waits for it (a watch on {@code ready}, nothing else). A
 * member arriving while {@code ready} exists enters at once, as in Curator.
 * To leave, a member other than the lowest (by name) deletes its node and
 * waits for the lowest's node to go; the lowest waits for the highest's to go
 * and deletes its own last; when no node of the round is left, the member
 * deletes {@code ready} and returns.
 *
 * <p><b>Failures.</b> An enter that times out, is interrupted or fails deletes
 * its own node (through a broken connection, in the background until the
 * session ends; the call returns at its deadline), also when the create's
 * reply was lost. A leave that times out
 * or fails deletes this member's node too, so the others are not held by it.
 * When a member's session ends (expiry, or LOST), its node goes with it, and
 * what the others see is this:
 * <ul>
 *   <li>before {@code memberQty} entered: it no longer counts; the others keep
 *       waiting until {@code memberQty} live members are in (a replacement
 *       completes the group) or their own time passes;
 *   <li>after they entered: its node's deletion counts as its leaving, so the
 *       others' {@code leave} completes without it;
 *   <li>the member itself: its blocked {@code enter} or {@code leave} fails
 *       with {@link SessionExpiredException}.
 * </ul>
 * The barrier never waits forever on a dead member; it does wait for members
 * that are alive but never arrive or never leave (use the timed forms).
 *
 * <p>One instance is one member: {@code enter}, then {@code leave}, then it
 * may enter again. Calls on one instance are serialized.
 */
public final class DistributedDoubleBarrier {
  private static final String READY = "ready";
  private static final byte[] NO_DATA = new byte[0];
  private static final long MAX_RETRY_DELAY_MS = 1_000;
  private static final CreateOptions EPHEMERAL_IN_CONTAINER =
      CreateOptions.builder(CreateMode.EPHEMERAL).creatingParentContainers().build();

  private final CoordinationClient client;
  private final String path;
  private final String readyPath;
  private final int memberQty;
  private Member member; // guarded by this

  /** This member's node in the current round, and the session that owns it. */
  private record Member(String name, long session) {}

  /** A double barrier on {@code path} for groups of {@code memberQty}. */
  public DistributedDoubleBarrier(CoordinationClient client, String path, int memberQty) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid barrier path: " + rule);
    });
    if (memberQty < 1) {
      throw new IllegalArgumentException("memberQty must be at least 1, not " + memberQty);
    }
    this.memberQty = memberQty;
    this.readyPath = Paths.join(path, READY);
  }

  /**
   * Enters and blocks until {@code memberQty} members have.
   *
   * @throws IllegalStateException if this member already entered
   */
  public void enter() throws CoordinationException, InterruptedException {
    enter(Deadline.never());
  }

  /**
   * Enters and blocks until {@code memberQty} members have, at most
   * {@code time}. False if the time passed first; this member's node is then
   * deleted and it has not entered.
   */
  public boolean enter(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return enter(Deadline.after(time, unit));
  }

  /**
   * Leaves and blocks until every member of the round has left.
   *
   * @throws IllegalStateException if this member has not entered
   */
  public void leave() throws CoordinationException, InterruptedException {
    leave(Deadline.never());
  }

  /**
   * Leaves and blocks until every member of the round has left, at most
   * {@code time}. False if the time passed first. Either way this member is
   * out of the barrier afterwards (its node deleted).
   */
  public boolean leave(long time, TimeUnit unit) throws CoordinationException, InterruptedException {
    return leave(Deadline.after(time, unit));
  }

  private synchronized boolean enter(Deadline deadline) throws CoordinationException, InterruptedException {
    if (member != null) {
      throw new IllegalStateException("this member already entered; leave first");
    }
    String name = UUID.randomUUID().toString();
    String ownPath = Paths.join(path, name);
    AtomicBoolean readySeen = new AtomicBoolean();
    try (Signal signal = Signal.open(client)) {
      // a creation of "ready" seen after our node exists is this round's, even if "ready" is gone again
      Watcher readyWatcher = event -> {
        if (event.type() == EventType.NODE_CREATED) {
          readySeen.set(true);
        }
        signal.process(event);
      };
      boolean entered = false;
      Throwable failure = null;
      try {
        long session = createOwn(ownPath, signal, deadline);
        entered = session != 0 && awaitReady(ownPath, session, signal, readyWatcher, readySeen, deadline);
        if (entered) {
          member = new Member(name, session);
        }
        return entered;
      } catch (Throwable t) {
        failure = t;
        throw t;
      } finally {
        if (!entered) {
          signal.forget(readyPath, readyWatcher);
          removeOwn(ownPath, signal, failure);
        }
      }
    }
  }

  /** Creates our node; returns its owner session, or 0 if the time passed first. */
  private long createOwn(String ownPath, Signal signal, Deadline deadline)
      throws CoordinationException, InterruptedException {
    long retryDelayMs = 0;
    while (true) {
      long seen = signal.version();
      if (!deadline.awaitConnection(client)) {
        return 0;
      }
      try {
        long owner = createOrAdopt(ownPath);
        if (owner != 0) {
          return owner;
        }
      } catch (CoordinationException e) {
        // before this member holds a node, a new session is as good as the old one
        if (e instanceof ClientClosedException || !(e.code().isRetryable() || e instanceof SessionExpiredException)) {
          throw e;
        }
        if (deadline.expired()) {
          return 0;
        }
        retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, deadline.remainingNanos());
      }
    }
  }

  /** Our node's owner: created now, or made by an earlier try whose reply was lost; 0 to try again. */
  private long createOrAdopt(String ownPath) throws CoordinationException, InterruptedException {
    try {
      return client.create(ownPath, NO_DATA, EPHEMERAL_IN_CONTAINER).stat().ephemeralOwner();
    } catch (NodeExistsException e) {
      Optional<Stat> stat = client.exists(ownPath);
      if (stat.isPresent() && stat.get().ephemeralOwner() == client.sessionId()) {
        return stat.get().ephemeralOwner();
      }
      // made by an earlier session of ours: never taken as this session's own
      deleteIfPresent(ownPath);
      return 0;
    }
  }

  private boolean awaitReady(String ownPath, long session, Signal signal, Watcher readyWatcher,
      AtomicBoolean readySeen, Deadline deadline) throws CoordinationException, InterruptedException {
    long retryDelayMs = 0;
    while (true) {
      long seen = signal.version();
      checkSession(signal, session);
      if (!deadline.awaitConnection(client)) {
        return readySeen.get();
      }
      checkSession(signal, session); // the wait may have been for a new session
      try {
        if (readySeen.get() || client.exists(readyPath, readyWatcher).isPresent()) {
          return true;
        }
        List<String> members = members();
        if (!members.contains(Paths.name(ownPath))) {
          throw new NoNodeException("this member's node is gone (deleted, or its session ended)", ownPath, List.of());
        }
        if (members.size() >= memberQty) {
          createReady();
          return true;
        }
        retryDelayMs = 0;
        if (!signal.awaitChange(seen, deadline.remainingNanos())) {
          return readySeen.get();
        }
      } catch (CoordinationException e) {
        if (e instanceof NoNodeException || e instanceof ClientClosedException || !e.code().isRetryable()) {
          throw e;
        }
        if (deadline.expired()) {
          return false;
        }
        retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, deadline.remainingNanos());
      }
    }
  }

  private void createReady() throws CoordinationException, InterruptedException {
    try {
      client.create(readyPath, NO_DATA, EPHEMERAL_IN_CONTAINER);
    } catch (NodeExistsException alreadyReady) {
      // another member completed the count at the same time
    }
  }

  private synchronized boolean leave(Deadline deadline) throws CoordinationException, InterruptedException {
    Member m = member;
    if (m == null) {
      throw new IllegalStateException("this member has not entered");
    }
    member = null; // out of the barrier after this call, however it ends
    String ownPath = Paths.join(path, m.name());
    boolean ownExists = true;
    boolean left = false;
    Throwable failure = null;
    String watched = null;
    try (Signal signal = Signal.open(client)) {
      try {
        Set<String> round = null;
        long retryDelayMs = 0;
        while (true) {
          long seen = signal.version();
          // also once its node is deleted: the member waits for the others to go, and its session's end
          // ends that wait, as an enter's
          checkSession(signal, m.session());
          if (!deadline.awaitConnection(client)) {
            return false;
          }
          checkSession(signal, m.session()); // the wait may have been for a new session
          try {
            List<String> all = members();
            if (round == null) {
              round = new HashSet<>(all); // later nodes belong to a later round
            }
            List<String> current = all.stream().filter(round::contains).sorted().toList();
            if (current.isEmpty()) {
              deleteIfPresent(readyPath);
              left = true;
              return true;
            }
            int index = current.indexOf(m.name());
            if (index < 0) {
              ownExists = false; // deleted meanwhile: by a try whose reply was lost, or by someone else
            }
            if (index == 0 && current.size() == 1) {
              deleteIfPresent(ownPath);
              ownExists = false;
              continue;
            }
            if (index == 0) {
              watched = Paths.join(path, current.get(current.size() - 1));
            } else {
              watched = Paths.join(path, current.get(0));
              if (ownExists) {
                deleteIfPresent(ownPath);
                ownExists = false;
              }
            }
            retryDelayMs = 0;
            if (client.exists(watched, signal).isPresent() && !signal.awaitChange(seen, deadline.remainingNanos())) {
              return false;
            }
          } catch (CoordinationException e) {
            if (e instanceof ClientClosedException || !e.code().isRetryable()) {
              throw e;
            }
            if (deadline.expired()) {
              return false;
            }
            retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, deadline.remainingNanos());
          }
        }
      } catch (Throwable t) {
        failure = t;
        throw t;
      } finally {
        if (!left) {
          if (watched != null) {
            signal.forget(watched, signal);
          }
          if (ownExists) {
            removeOwn(ownPath, signal, failure);
          }
        }
      }
    }
  }

  /** Fails if this member's session ended: its node, and with it its membership, is gone. */
  private void checkSession(Signal signal, long session) throws SessionExpiredException {
    if (signal.sessionLost() || client.sessionId() != session) {
      throw new SessionExpiredException("the session of this barrier member ended, and its node with it", null);
    }
  }

  /** Member node names (not "ready"); none if the barrier's container is gone. */
  private List<String> members() throws CoordinationException, InterruptedException {
    try {
      return client.getChildren(path).stream().filter(name -> !name.equals(READY)).toList();
    } catch (NoNodeException noMembers) {
      return List.of();
    }
  }

  /**
   * Deletes our node after a timeout or failure: now if the client is
   * connected, else (or if the connection breaks meanwhile) in the background
   * until it is gone or its session ended, without holding up the caller.
   * Runs even if the calling thread was interrupted (the interrupt is kept).
   * Cleanup failures are attached to {@code failure} if there is one, thrown
   * otherwise.
   */
  private void removeOwn(String ownPath, Signal signal, Throwable failure)
      throws CoordinationException, InterruptedException {
    if (signal.sessionLost()) {
      return; // the node went with the session
    }
    Optional<Exception> now = BackgroundRetry.nowOrInBackground(client, client.sessionId(),
        "delete barrier member " + ownPath, () -> deleteIfPresent(ownPath));
    if (now.isEmpty() || now.get() instanceof SessionExpiredException) {
      return;
    }
    Exception e = now.get();
    if (e instanceof CoordinationException ce && ce.code().isRetryable()) {
      return; // the delete goes on in the background
    }
    if (failure != null) {
      failure.addSuppressed(e);
    } else if (e instanceof CoordinationException ce) {
      throw ce;
    } else if (e instanceof InterruptedException ie) {
      throw ie;
    } else {
      throw (RuntimeException) e;
    }
  }

  private void deleteIfPresent(String nodePath) throws CoordinationException, InterruptedException {
    try {
      client.delete(nodePath);
    } catch (NoNodeException alreadyGone) {
      // fine
    }
  }
}
