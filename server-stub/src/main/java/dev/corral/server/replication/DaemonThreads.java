package dev.corral.server.replication;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

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
}
