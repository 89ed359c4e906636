package dev.corral.client;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A watcher that keeps the type of the first event it is told, for a thread to wait on. */
final class FirstEvent implements Watcher {
  private final CountDownLatch fired = new CountDownLatch(1);
  private final AtomicReference<EventType> type = new AtomicReference<>();

  @Override
  public void process(WatchedEvent event) {
    type.compareAndSet(null, event.type());
    fired.countDown();
  }

  /** The first event's type, once told; empty if {@code time} passed first. */
  Optional<EventType> await(long time, TimeUnit unit) throws InterruptedException {
    return fired.await(time, unit) ? Optional.of(type.get()) : Optional.empty();
  }
}
