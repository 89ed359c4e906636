package dev.corral.recipes.barrier;

import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A recipe call running on a thread of its own, so a test can see where it waits and stop the server under it. */
record Started<T>(Thread thread, CompletableFuture<T> outcome) {

  static <T> Started<T> call(Callable<T> call) {
    CompletableFuture<T> outcome = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        outcome.complete(call.call());
      } catch (Exception e) {
        outcome.completeExceptionally(e);
      }
    });
    thread.setDaemon(true); // a call that never returns does not hold the test JVM
    thread.start();
    return new Started<>(thread, outcome);
  }

  /** True while the call is parked in a recipe's wait for a watch or state change (Signal.awaitChange). */
  boolean waitsForAChange() {
    return thread.getState() == Thread.State.TIMED_WAITING && Arrays.stream(thread.getStackTrace())
        .anyMatch(frame -> frame.getClassName().endsWith(".Signal") && frame.getMethodName().equals("awaitChange"));
  }

  /** What the call returned, waiting for it as long as a test waits for anything (a fifth of the clients' patience). */
  T result() throws Exception {
    return outcome.get(Clients.PATIENCE.dividedBy(5).toSeconds(), TimeUnit.SECONDS);
  }
}
