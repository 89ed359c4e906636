package dev.corral.client.grpc;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's event thread: runs watcher calls, listener calls and answer
 * completions one at a time, in the order they were queued, on the caller's
 * executor (serialised) or on a thread of its own. A task that throws is logged
 * and delivery goes on. Answers to async calls made on the event thread itself
 * complete on a callback thread of the client's own ({@link #executeCallback}).
 * The answer to a call whose caller blocks on it completes on the receiving
 * thread when nothing is queued ahead of it ({@link #executeNowIfIdle}).
 */
final class EventQueue {
  private static final Logger log = LoggerFactory.getLogger(EventQueue.class);
  private static final AtomicInteger COUNT = new AtomicInteger();
  private static final ThreadLocal<EventQueue> RUNNING = new ThreadLocal<>();
  /** Set while a thread makes a call it will block on ({@link #awaiting}). */
  private static final ThreadLocal<Boolean> AWAITING = new ThreadLocal<>();

  private final ExecutorService own;
  private final Executor serial;
  private final ThreadPoolExecutor callbacks;
  /** Tasks queued and not yet finished. */
  private final AtomicInteger unfinished = new AtomicInteger();

  /** On {@code executor} (serialised), or on a thread of its own when null. */
  EventQueue(Executor executor) {
    int number = COUNT.incrementAndGet();
    if (executor == null) {
      own = Executors.newSingleThreadExecutor(new ThreadFactoryBuilder()
          .setNameFormat("corral-events-" + number).setDaemon(true).build());
      serial = own;
    } else {
      own = null;
      serial = MoreExecutors.newSequentialExecutor(executor);
    }
    // one thread, only while there is work: callbacks run one at a time, in order
    callbacks = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        new ThreadFactoryBuilder().setNameFormat("corral-events-" + number + "-callbacks").setDaemon(true).build());
    callbacks.allowCoreThreadTimeOut(true);
  }

  /** Queues {@code task}; runs it at once if the queue was shut down. */
  void execute(Runnable task) {
    unfinished.incrementAndGet();
    try {
      serial.execute(() -> {
        RUNNING.set(this);
        try {
          task.run();
        } catch (Throwable t) {
          log.error("A watcher, listener or callback threw; event delivery goes on", t);
        } finally {
          RUNNING.remove();
          unfinished.decrementAndGet();
        }
      });
    } catch (RejectedExecutionException closed) {
      unfinished.decrementAndGet();
      task.run();
    }
  }

  /**
   * Runs {@code completion} on this thread when no task is queued or running,
   * else queues it behind them. Only for completions that run no user code:
   * what is queued is every event received before, and it is delivered first.
   */
  void executeNowIfIdle(Runnable completion) {
    if (unfinished.get() == 0) {
      completion.run();
    } else {
      execute(completion);
    }
  }

  /**
   * Makes {@code call} on this thread as a call the caller will block on: its
   * answers are delivered {@link Delivery#AWAITED} (on the event thread itself,
   * {@link Delivery#DIRECT} as always).
   */
  <T> T awaiting(Supplier<T> call) {
    AWAITING.set(Boolean.TRUE);
    try {
      return call.get();
    } finally {
      AWAITING.remove();
    }
  }

  /** How answers to a call made on this thread now are delivered. */
  Delivery deliveryHere() {
    if (inEventThread()) {
      return Delivery.DIRECT;
    }
    return AWAITING.get() != null ? Delivery.AWAITED : Delivery.QUEUED;
  }

  /**
   * Runs {@code completion} on the client's callback thread, in order: for the
   * answers to async calls made on the event thread. Those cannot complete on
   * the event thread (a caller blocking on them there would wait on itself) nor
   * on the thread that receives answers (a callback blocking there would stop
   * every answer of the session, its own included).
   */
  void executeCallback(Runnable completion) {
    try {
      callbacks.execute(() -> {
        try {
          completion.run();
        } catch (Throwable t) {
          log.error("A callback threw; delivery goes on", t);
        }
      });
    } catch (RejectedExecutionException closed) {
      completion.run();
    }
  }

  /** True when called from a task of this queue. */
  boolean inEventThread() {
    return RUNNING.get() == this;
  }

  /** Lets queued tasks finish (briefly), then stops the own thread, if any. */
  void shutdown() throws InterruptedException {
    callbacks.shutdown();
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
