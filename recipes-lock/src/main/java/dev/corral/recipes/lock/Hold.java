package dev.corral.recipes.lock;

import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;

/**
 * One granted lock node of this process: its path, fencing token and owning
 * session, the thread that holds it, how many times that thread entered it,
 * and whether it was lost with the session.
 */
final class Hold {
  private final String path;
  private final long token;
  private final long session;
  private final Thread owner;
  private int count = 1; // touched by the owner thread only
  private volatile boolean lost;
  private volatile boolean releasing;

  Hold(String path, long token, long session, Thread owner) {
    this.path = path;
    this.token = token;
    this.session = session;
    this.owner = owner;
  }

  String path() {
    return path;
  }

  long token() {
    return token;
  }

  long session() {
    return session;
  }

  Thread owner() {
    return owner;
  }

  int enter() {
    return ++count;
  }

  /** One exit; returns how many entries remain. */
  int exit() {
    return --count;
  }

  void markLost() {
    lost = true;
  }

  void markReleasing() {
    releasing = true;
  }

  boolean isReleasing() {
    return releasing;
  }

  /**
   * True once the session that owned the node ended (told by LOST, or seen as
   * a different session id): the node is gone, and someone else may hold the lock.
   */
  boolean isLost(CoordinationClient client) {
    if (!lost && (client.sessionId() != session || client.state() == ConnectionState.LOST)) {
      lost = true;
    }
    return lost;
  }

  @Override
  public String toString() {
    return "Hold[" + path + ", token " + token + (lost ? ", lost" : "") + (releasing ? ", releasing" : "") + "]";
  }
}
