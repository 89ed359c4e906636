package dev.corral.recipes.election;

import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.Protection;
import dev.corral.recipes.election.Contenders.OwnNode;
import dev.corral.recipes.election.Contenders.Standing;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One participant's place in a {@link Contenders} queue, kept across
 * reconnects: its node (if any) and the GUID of a create whose reply may have
 * been lost. Not thread-safe: one thread (or one serial loop) drives it.
 */
final class Candidacy {
  private final CoordinationClient client;
  private final Contenders contenders;
  private final Supplier<byte[]> data;
  private OwnNode node;
  private String pendingGuid;
  private long attemptSession; // standInSession's: the session the attempt lives in, 0 until its first call

  Candidacy(CoordinationClient client, Contenders contenders, Supplier<byte[]> data) {
    this.client = client;
    this.contenders = contenders;
    this.data = data;
  }

  /** Our node, if we hold one. */
  Optional<OwnNode> node() {
    return Optional.ofNullable(node);
  }

  /** Whether {@code path} is our node and the current session owns it. */
  boolean isCurrent(String path) {
    return node != null && node.path().equals(path) && node.session() == client.sessionId();
  }

  /**
   * Makes sure we hold a node owned by the current session (joining the queue
   * if not) and tells where it stands. A node of an earlier session is deleted
   * and replaced, never taken as ours.
   */
  Standing stand() throws CoordinationException, InterruptedException {
    if (node != null && node.session() == client.sessionId()) {
      return examineHeld();
    }
    if (node != null) {
      contenders.deleteIfPresent(node.path());
      node = null;
    }
    return join();
  }

  /**
   * As {@link #stand()}, but for a participant whose attempt lives in one
   * session (a selector's turn, as in Curator): the session current at the
   * first call is the attempt's, and once another one is current the standing
   * is GONE, whether the attempt held a node then or was still joining (a
   * join whose reply was lost may have made a node, which went with it). A
   * node of an earlier session is never replaced.
   */
  Standing standInSession() throws CoordinationException, InterruptedException {
    long session = client.sessionId();
    if (attemptSession == 0) {
      attemptSession = session;
    }
    if (session != attemptSession || node != null && node.session() != session) {
      return Standing.GONE;
    }
    return node == null ? join() : examineHeld();
  }

  private Standing examineHeld() throws CoordinationException, InterruptedException {
    Standing standing = contenders.examine(node);
    if (standing.kind() == Standing.Kind.GONE) {
      node = null;
    }
    return standing;
  }

  /** Joins the queue, first finding the node of a create whose reply was lost, if it made one. */
  private Standing join() throws CoordinationException, InterruptedException {
    if (pendingGuid != null) {
      Optional<OwnNode> found = contenders.recover(pendingGuid);
      pendingGuid = null;
      if (found.isPresent()) {
        node = found.get();
        return examineHeld();
      }
    }
    String guid = Protection.newGuid();
    pendingGuid = guid;
    Contenders.Joined joined = contenders.join(guid, data.get());
    pendingGuid = null;
    node = joined.node();
    return joined.standing();
  }

  /**
   * Leaves the queue: deletes our node, and any node a create with a lost reply
   * made. On failure, what is left is kept to try again.
   */
  void withdraw() throws CoordinationException, InterruptedException {
    if (pendingGuid != null) {
      Optional<OwnNode> found = contenders.recover(pendingGuid);
      if (found.isPresent()) {
        contenders.deleteIfPresent(found.get().path());
      }
      pendingGuid = null;
    }
    if (node != null) {
      contenders.deleteIfPresent(node.path());
      node = null;
    }
  }

  /**
   * Withdraws without blocking, for closing while the connection is down:
   * what we hold is deleted once the connection is back with the same session
   * (so a session that survives does not keep a closed participant queued);
   * if the session is lost instead, our nodes went with it.
   */
  void withdrawWhenReconnected() {
    String nodePath = node == null ? null : node.path();
    String guid = pendingGuid;
    node = null;
    pendingGuid = null;
    if (nodePath == null && guid == null) {
      return;
    }
    new ConnectionStateListener() {
      private final AtomicBoolean done = new AtomicBoolean();

      void register() {
        client.addConnectionStateListener(this);
        if (client.state().isConnected()) {
          finish(true);
        }
      }

      @Override
      public void stateChanged(CoordinationClient c, ConnectionState newState) {
        if (newState == ConnectionState.LOST) {
          finish(false);
        } else if (newState.isConnected()) {
          finish(true);
        }
      }

      private void finish(boolean delete) {
        if (done.compareAndSet(false, true)) {
          client.removeConnectionStateListener(this);
          if (delete) {
            contenders.deleteAsync(nodePath, guid);
          }
        }
      }
    }.register();
  }
}
