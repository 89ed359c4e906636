package dev.corral.client.recipe;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import java.util.concurrent.TimeUnit;

/**
 * Wakes a thread that waits for "something changed": a watch it left fired, or
 * the connection state moved. The waiter reads {@link #version()}, then looks
 * (leaving watches with this signal), then {@link #awaitChange waits} for the
 * version to move, so nothing that happens after the read is missed.
 */
public final class Signal implements Watcher, ConnectionStateListener, AutoCloseable {
  private final CoordinationClient client;
  private long version;
  private boolean sessionLost;

  private Signal(CoordinationClient client) {
    this.client = client;
  }

  /** A signal that also wakes on every connection state change until closed. */
  public static Signal open(CoordinationClient client) {
    Signal signal = new Signal(client);
    client.addConnectionStateListener(signal);
    return signal;
  }

  public synchronized long version() {
    return version;
  }

  /** True once LOST was seen since this signal was opened. */
  public synchronized boolean sessionLost() {
    return sessionLost;
  }

  @Override
  public synchronized void process(WatchedEvent event) {
    if (event.type().isWatchRemoval()) {
      return; // our own forget: nothing changed
    }
    version++;
    notifyAll();
  }

  @Override
  public synchronized void stateChanged(CoordinationClient c, ConnectionState newState) {
    if (newState == ConnectionState.LOST) {
      sessionLost = true;
    }
    version++;
    notifyAll();
  }

  /**
   * After a failure worth retrying: waits for a state change or a pause
   * growing from 50 ms to {@code maxDelayMs} (and at most {@code maxNanos});
   * returns the pause to grow from next time.
   */
  public long pause(long seen, long previousDelayMs, long maxDelayMs, long maxNanos) throws InterruptedException {
    long delayMs = Math.min(maxDelayMs, Math.max(50, previousDelayMs * 2));
    awaitChange(seen, Math.min(maxNanos, TimeUnit.MILLISECONDS.toNanos(delayMs)));
    return delayMs;
  }

  /** Waits until the version differs from {@code seen}, at most {@code nanos}; true if it does. */
  public synchronized boolean awaitChange(long seen, long nanos) throws InterruptedException {
    long end = System.nanoTime() + Math.min(nanos, Long.MAX_VALUE / 4);
    while (version == seen) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /**
   * Drops {@code watcher}'s data watch on {@code path} when leaving early, so
   * watches do not pile up on a long-lived node. Does not wait: the client
   * forgets the watch at once and tells the server when it can (a caller with
   * a deadline must not wait here for a broken connection). Best effort: a
   * watch that fired meanwhile is fine.
   */
  public void forget(String path, Watcher watcher) {
    client.async().removeWatches(path, watcher, WatcherType.DATA, true);
  }

  @Override
  public void close() {
    client.removeConnectionStateListener(this);
  }
}
