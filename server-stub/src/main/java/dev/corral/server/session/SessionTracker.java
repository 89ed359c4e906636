package dev.corral.server.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * When each live session was last heard from, and which ones have gone quiet
 * for longer than their timeout. Time comes from an injectable nanosecond
 * ticker so tests can advance it instead of sleeping.
 */
public final class SessionTracker {
  private final LongSupplier nanoTicker;
  private final Map<Long, Tracked> sessions = new ConcurrentHashMap<>();

  private static final class Tracked {
    final long timeoutNanos;
    volatile long lastHeardNanos;
    volatile boolean closing;

    Tracked(long timeoutNanos, long now) {
      this.timeoutNanos = timeoutNanos;
      this.lastHeardNanos = now;
    }
  }

  public SessionTracker(LongSupplier nanoTicker) {
    this.nanoTicker = nanoTicker;
  }

  /** Starts tracking a session with a full, fresh timeout. */
  public void add(long sessionId, int timeoutMs) {
    sessions.put(sessionId, new Tracked(timeoutMs * 1_000_000L, nanoTicker.getAsLong()));
  }

  /**
   * Gives every session a full, fresh timeout and forgets closes in progress
   * (a new leader does this: it cannot know when the old one last heard them).
   */
  public void refreshAll() {
    long now = nanoTicker.getAsLong();
    sessions.values().forEach(t -> {
      t.lastHeardNanos = now;
      t.closing = false;
    });
  }

  /** The number of sessions tracked. */
  public int size() {
    return sessions.size();
  }

  /** Records that the session's client was heard from now. */
  public void touch(long sessionId) {
    Tracked t = sessions.get(sessionId);
    if (t != null) {
      t.lastHeardNanos = nanoTicker.getAsLong();
    }
  }

  public void remove(long sessionId) {
    sessions.remove(sessionId);
  }

  /** True if the session is being closed for expiry (its close is in the log's hands). */
  public boolean isClosing(long sessionId) {
    Tracked t = sessions.get(sessionId);
    return t != null && t.closing;
  }

  /**
   * Sessions quiet for longer than their timeout that are not already being
   * closed; each is marked as closing and returned once.
   */
  public List<Long> takeExpired() {
    long now = nanoTicker.getAsLong();
    List<Long> expired = new ArrayList<>();
    sessions.forEach((id, t) -> {
      if (!t.closing && now - t.lastHeardNanos > t.timeoutNanos) {
        t.closing = true;
        expired.add(id);
      }
    });
    return expired;
  }

  /**
   * Nanoseconds until the first tracked session not already being closed
   * times out if it is not heard from meanwhile (0 if one has); {@code
   * Long.MAX_VALUE} when there is none. Hearing from sessions only puts
   * their time off, so a check made then is never late.
   */
  public long nanosUntilNextExpiry() {
    long now = nanoTicker.getAsLong();
    long soonest = Long.MAX_VALUE;
    for (Tracked t : sessions.values()) {
      if (!t.closing) {
        soonest = Math.min(soonest, Math.max(0, t.lastHeardNanos + t.timeoutNanos - now));
      }
    }
    return soonest;
  }

  /** The close of an expired session could not be proposed: try again on the next check. */
  public void closeFailed(long sessionId) {
    Tracked t = sessions.get(sessionId);
    if (t != null) {
      t.closing = false;
    }
  }
}
