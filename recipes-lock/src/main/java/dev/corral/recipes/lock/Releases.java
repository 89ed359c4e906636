package dev.corral.recipes.lock;

import dev.corral.client.recipe.BackgroundRetry;
import dev.corral.client.Code;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;

/**
 * Giving a hold back: delete its node, and forget the hold only once the
 * server confirmed the delete (or the session ended). A delete that cannot
 * reach the server is retried in the background, and the failure is thrown.
 */
final class Releases {
  private Releases() {}

  static void release(CoordinationClient client, HoldTracker tracker, Hold hold)
      throws CoordinationException, InterruptedException {
    if (hold.isLost(client)) {
      tracker.ended(hold); // the node went with its session
      return;
    }
    hold.markReleasing();
    boolean interrupted = Thread.interrupted(); // a release in a finally block after an interrupt must still work
    try {
      LockNodes.delete(client, hold.path());
    } catch (CoordinationException e) {
      if (e.code() == Code.SESSION_EXPIRED || e.code() == Code.CLIENT_CLOSED) {
        hold.markLost();
        tracker.ended(hold);
        return;
      }
      inBackground(client, tracker, hold);
      throw e;
    } catch (InterruptedException | RuntimeException e) {
      inBackground(client, tracker, hold);
      throw e;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    tracker.ended(hold);
  }

  private static void inBackground(CoordinationClient client, HoldTracker tracker, Hold hold) {
    BackgroundRetry.untilSessionEnds(client, hold.session(), "release " + hold.path(),
        () -> LockNodes.delete(client, hold.path()), () -> tracker.ended(hold));
  }
}
