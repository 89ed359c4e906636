package dev.corral.client.recipe;

import dev.corral.client.Code;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Finishes a recipe's cleanup (deleting its own ephemeral node) on a
 * background thread when it cannot be finished now: tried again with backoff
 * until it succeeds or the session that owned the node ends, for its ephemeral
 * nodes then go with it. Shared by the recipes, so that a call that gave up
 * (timed out, interrupted, failed) returns without leaving its node behind for
 * good and without waiting for a connection to come back.
 */
public final class BackgroundRetry {
  private static final System.Logger LOG = System.getLogger(BackgroundRetry.class.getName());
  private static final long FIRST_RETRY_MILLIS = 50;
  private static final long MAX_RETRY_MILLIS = 2_000;
  private static final ScheduledThreadPoolExecutor BACKGROUND = newBackgroundExecutor();

  /** Something to do against the server that may fail and be tried again. */
  @FunctionalInterface
  public interface Attempt {
    void run() throws CoordinationException, InterruptedException;
  }

  private BackgroundRetry() {}

  /**
   * Runs {@code attempt} on a background thread until it succeeds or
   * {@code session} is no longer the client's (or the client closed), with
   * backoff; then runs {@code done}. {@code what} names it in debug logs.
   */
  public static void untilSessionEnds(CoordinationClient client, long session, String what, Attempt attempt,
      Runnable done) {
    new Retrying(client, session, what, attempt, done).schedule();
  }

  /**
   * Runs {@code attempt} now if the client is connected (a call made while it
   * is not would wait for the connection, past the caller's deadline), else,
   * or when it fails short of {@link #endsTrying}, goes on with it as
   * {@link #untilSessionEnds} does. Tries nothing once {@code session} is no
   * longer the client's: its ephemeral nodes went with it; nor for session 0,
   * the client's between sessions, which owns no node. Runs even if the
   * calling thread was interrupted (the interrupt is kept).
   *
   * @return the failure of the try made now, for the caller to attach or throw
   */
  public static Optional<Exception> nowOrInBackground(CoordinationClient client, long session, String what,
      Attempt attempt) {
    if (session == 0 || session != client.sessionId()) {
      return Optional.empty();
    }
    if (!client.state().isConnected()) {
      untilSessionEnds(client, session, what, attempt, () -> { });
      return Optional.empty();
    }
    boolean interrupted = Thread.interrupted();
    try {
      attempt.run();
      return Optional.empty();
    } catch (CoordinationException | InterruptedException | RuntimeException e) {
      if (!endsTrying(e)) {
        LOG.log(System.Logger.Level.DEBUG, () -> what + " failed now; retrying in the background", e);
        untilSessionEnds(client, session, what, attempt, () -> { });
      }
      return Optional.of(e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** True for failures after which the node is certainly gone or unreachable for good. */
  public static boolean endsTrying(Throwable e) {
    return e instanceof CoordinationException ce
        && (ce.code() == Code.SESSION_EXPIRED || ce.code() == Code.CLIENT_CLOSED);
  }

  /** A background attempt, rescheduled with backoff until done. */
  private static final class Retrying implements Runnable {
    private final CoordinationClient client;
    private final long session;
    private final String what;
    private final Attempt attempt;
    private final Runnable done;
    private int failures;

    Retrying(CoordinationClient client, long session, String what, Attempt attempt, Runnable done) {
      this.client = client;
      this.session = session;
      this.what = what;
      this.attempt = attempt;
      this.done = done;
    }

    void schedule() {
      long delay = Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures, 6));
      BACKGROUND.schedule(this, delay, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
      try {
        if (client.sessionId() == session) {
          attempt.run();
        }
        done.run();
      } catch (CoordinationException | RuntimeException e) {
        if (endsTrying(e) || client.sessionId() != session) {
          done.run();
          return;
        }
        failures++;
        LOG.log(System.Logger.Level.DEBUG, () -> what + " failed (" + failures + " times); trying again", e);
        schedule();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failures++;
        schedule();
      }
    }
  }

  private static ScheduledThreadPoolExecutor newBackgroundExecutor() {
    AtomicInteger count = new AtomicInteger();
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
      Thread thread = new Thread(task, "corral-recipe-cleanup-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    executor.setKeepAliveTime(5, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
    executor.setRemoveOnCancelPolicy(true);
    return executor;
  }
}
