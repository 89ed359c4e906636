package dev.corral.recipes.election;

import java.util.concurrent.ThreadFactory;

/** Thread factories for the recipes' own threads. */
final class Threads {
  private Threads() {}

  /** Daemon threads named {@code name}. */
  static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
