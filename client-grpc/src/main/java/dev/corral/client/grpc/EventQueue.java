package dev.corral.client.grpc;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's event thread: runs watcher calls, listener calls and answer
 * completions one at a time, in the order they were queued, on the caller's
 * executor (serialised) or on a thread of its own. A task that throws is logged
 * and delivery goes on.
 */
final class EventQueue {
  private static final Logger log = LoggerFactory.getLogger(EventQueue.class);
  private static final AtomicInteger COUNT = new AtomicInteger();
  private static final ThreadLocal<EventQueue> RUNNING = new ThreadLocal<>();

  private final ExecutorService own;
  private final Executor serial;

  /** On {@code executor} (serialised), or on a thread of its own when null. */
  EventQueue(Executor executor) {
    if (executor == null) {
      own = Executors.newSingleThreadExecutor(new ThreadFactoryBuilder()
          .setNameFormat("corral-events-" + COUNT.incrementAndGet()).setDaemon(true).build());
      serial = own;
    } else {
      own = null;
      serial = MoreExecutors.newSequentialExecutor(executor);
    }
  }

  /** Queues {@code task}; runs it at once if the queue was shut down. */
  void execute(Runnable task) {
    try {
      serial.execute(() -> {
        RUNNING.set(this);
        try {
          task.run();
        } catch (Throwable t) {
          log.error("A watcher, listener or callback threw; event delivery goes on", t);
        } finally {
          RUNNING.remove();
        }
      });
    } catch (RejectedExecutionException closed) {
      task.run();
    }
  }

  /** True when called from a task of this queue. */
  boolean inEventThread() {
    return RUNNING.get() == this;
  }

  /** Lets queued tasks finish (briefly), then stops the own thread, if any. */
  void shutdown() throws InterruptedException {
    if (own == null) {
      return;
    }
    own.shutdown();
    if (!inEventThread() && !own.awaitTermination(5, TimeUnit.SECONDS)) {
      log.warn("Event thread still busy 5 s after close; interrupting it");
      own.shutdownNow();
    }
  }
}
