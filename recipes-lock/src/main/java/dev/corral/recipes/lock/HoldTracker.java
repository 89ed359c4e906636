package dev.corral.recipes.lock;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The holds of one lock object in this process, kept in step with the
 * client's connection: listens to the client while anything is held or being
 * acquired (and only then, so a lock object left alone holds no listener),
 * marks every hold lost on LOST (or on a new session), and tells the lock's
 * {@link LockStateListener}s.
 */
final class HoldTracker implements ConnectionStateListener {
  private static final Logger LOG = LoggerFactory.getLogger(HoldTracker.class);

  private final CoordinationClient client;
  private final String path;
  private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
  private final List<LockStateListener> listeners = new CopyOnWriteArrayList<>();
  private int users; // guarded by this
  private LockState lastTold = LockState.HELD; // guarded by this; only read on the listener thread

  HoldTracker(CoordinationClient client, String path) {
    this.client = client;
    this.path = path;
  }

  /** An acquire begins (or a hold continues): the connection listener stays registered. */
  synchronized void enter() {
    if (users++ == 0) {
      client.addConnectionStateListener(this);
    }
  }

  /** An acquire failed, or a hold ended. */
  synchronized void exit() {
    if (--users == 0) {
      client.removeConnectionStateListener(this);
    }
  }

  /** Records a granted node, for a caller that called {@link #enter()}; the hold keeps that entry until {@link #ended}. */
  Hold granted(String nodePath, long token, long session, Thread owner) {
    Hold hold = new Hold(nodePath, token, session, owner);
    holds.add(hold);
    synchronized (this) {
      lastTold = LockState.HELD;
    }
    hold.isLost(client); // a state change may have come between the grant and now
    return hold;
  }

  /** The hold's node is gone (confirmed deleted, or gone with its session). */
  void ended(Hold hold) {
    if (holds.remove(hold)) {
      exit();
    }
  }

  /** True while a hold of this process is neither lost nor ended (a release in progress still counts). */
  boolean anyHeld() {
    return holds.stream().anyMatch(hold -> !hold.isLost(client));
  }

  LockState state() {
    if (holds.isEmpty()) {
      return LockState.NOT_HELD;
    }
    if (!anyHeld()) {
      return LockState.LOST;
    }
    return client.state().isConnected() ? LockState.HELD : LockState.SUSPENDED;
  }

  void addListener(LockStateListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  void removeListener(LockStateListener listener) {
    listeners.remove(listener);
  }

  @Override
  public void stateChanged(CoordinationClient ignored, ConnectionState newState) {
    if (holds.isEmpty()) {
      return;
    }
    LockState told;
    if (newState == ConnectionState.LOST) {
      holds.forEach(Hold::markLost);
      told = LockState.LOST;
    } else if (!newState.isConnected()) {
      told = LockState.SUSPENDED;
    } else {
      told = anyHeld() ? LockState.HELD : LockState.LOST;
    }
    synchronized (this) {
      if (told == lastTold) {
        return;
      }
      lastTold = told;
    }
    LOG.debug("lock {} is {} (connection {})", path, told, newState);
    for (LockStateListener listener : listeners) {
      try {
        listener.stateChanged(told);
      } catch (RuntimeException e) {
        LOG.warn("a lock state listener of {} failed", path, e);
      }
    }
  }
}
