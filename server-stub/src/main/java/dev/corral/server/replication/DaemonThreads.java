package dev.corral.server.replication;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** Threads of the replication layer: named, and never keeping the JVM alive. */
final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory of daemon threads all called {@code name} (each executor here has one thread). */
  static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = Executors.defaultThreadFactory().newThread(runnable);
      thread.setName(name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Waits up to {@code timeout} for {@code executor}, already shut down, to
   * finish its tasks; false if it did not, or if this thread was interrupted
   * meanwhile (its interrupt is kept).
   */
  static boolean awaitTermination(ExecutorService executor, Duration timeout) {
    try {
      return executor.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
