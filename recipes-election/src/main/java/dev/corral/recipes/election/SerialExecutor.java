package dev.corral.recipes.election;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a caller-chosen executor
 * (which may have many threads): one listener's notifications stay in order.
 * A task that throws is logged and does not stop the ones after it.
 */
final class SerialExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

  private final Executor delegate;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean draining;

  SerialExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (this) {
      tasks.add(task);
      if (draining) {
        return;
      }
      draining = true;
    }
    try {
      delegate.execute(this::drain);
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        draining = false;
        log.warn("a listener's executor rejected {} notification(s); they are dropped", tasks.size(), e);
        tasks.clear();
      }
    }
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = tasks.poll();
        if (next == null) {
          draining = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException | Error e) {
        log.warn("a listener threw", e);
      }
    }
  }
}
