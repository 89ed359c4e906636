package dev.corral.recipes.lock;

import dev.corral.client.recipe.BackgroundRetry;
import dev.corral.client.recipe.Deadline;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.NoNodeException;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.Paths;
import dev.corral.client.Protection;
import dev.corral.client.SequentialNames;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.Stat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The node work every lock type shares: the protected create of a lock node
 * together with the listing of its siblings in one round trip (recovering a
 * lost reply by GUID), and the removal of one's own nodes, retried in the
 * background when the server cannot be reached.
 */
final class LockNodes {

  /** Lock nodes go with their session; lock paths are containers, gone with their last node. */
  private static final CreateOptions LOCK_NODE =
      CreateOptions.builder(CreateMode.EPHEMERAL_SEQUENTIAL).creatingParentContainers().build();
  private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long FIRST_RETRY_MILLIS = 50;
  private static final long MAX_RETRY_MILLIS = 2_000;

  private LockNodes() {}

  /**
   * A created lock node.
   *
   * @param path its full path
   * @param name its name (protected, with the sequence suffix)
   * @param session the session that owns it (its Stat's ephemeralOwner)
   * @param czxid the zxid that created it: the fencing token
   * @param siblings every child of the lock path at creation, ours included, sorted by sequence
   */
  record Entry(String path, String name, long session, long czxid, List<String> siblings) {}

  /**
   * Creates {@code dir/_c_<guid>-<prefix><counter>} (ephemeral sequential, with
   * missing parents as containers) and lists {@code dir}, in one multi. If the
   * answer is lost (a retryable failure), finds the node by its GUID instead of
   * creating a second one, and tries again until the deadline.
   *
   * @throws CoordinationException a non-retryable failure, or the last retryable one once the deadline passed;
   *     the node may then exist: the caller removes it with {@link #removeOwn}
   */
  static Entry create(CoordinationClient client, String dir, String prefix, byte[] data, String guid,
      Deadline deadline) throws CoordinationException, InterruptedException {
    String wanted = Protection.protect(Paths.join(dir, prefix), guid);
    List<Op> ops = List.of(Op.create(wanted, data, LOCK_NODE), Op.getChildren(dir));
    boolean maybeCreated = false;
    int failures = 0;
    while (true) {
      try {
        if (maybeCreated) {
          Optional<Entry> own = findOwn(client, dir, guid);
          if (own.isPresent()) {
            return own.get();
          }
          maybeCreated = false;
        }
        List<OpResult> results = client.multi(ops);
        OpResult.CreateResult created = (OpResult.CreateResult) results.get(0);
        OpResult.GetChildrenResult children = (OpResult.GetChildrenResult) results.get(1);
        return new Entry(created.path(), Paths.name(created.path()), created.stat().ephemeralOwner(),
            created.stat().czxid(), SequentialNames.sorted(children.children()));
      } catch (CoordinationException e) {
        if (!e.code().isRetryable() || deadline.expired()) {
          throw e;
        }
        maybeCreated = true;
        pause(client, deadline, ++failures);
      }
    }
  }

  /** The node carrying {@code guid} under {@code dir}, if the create happened. */
  private static Optional<Entry> findOwn(CoordinationClient client, String dir, String guid)
      throws CoordinationException, InterruptedException {
    List<String> children;
    try {
      children = client.getChildren(dir);
    } catch (NoNodeException noParent) {
      return Optional.empty();
    }
    Optional<String> own = Protection.findOwn(SequentialNames.sorted(children), guid);
    if (own.isEmpty()) {
      return Optional.empty();
    }
    String path = Paths.join(dir, own.get());
    Optional<Stat> stat = client.exists(path);
    if (stat.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Entry(path, own.get(), stat.get().ephemeralOwner(), stat.get().czxid(),
        SequentialNames.sorted(children)));
  }

  /**
   * Waits before another try: until connected if the connection is down,
   * else a short backoff; never past the deadline.
   */
  static void pause(CoordinationClient client, Deadline deadline, int failures) throws InterruptedException {
    long slice = deadline.sliceNanos(MAX_PAUSE_NANOS);
    if (!client.state().isConnected()) {
      client.blockUntilConnected(slice, TimeUnit.NANOSECONDS);
    } else {
      long backoff = TimeUnit.MILLISECONDS.toNanos(Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures, 6)));
      TimeUnit.NANOSECONDS.sleep(Math.min(slice, backoff));
    }
  }

  /** Deletes every child of {@code dir} carrying {@code guid} (the node of one acquire attempt, and any stray twin). */
  static void removeOwn(CoordinationClient client, String dir, String guid)
      throws CoordinationException, InterruptedException {
    List<String> children;
    try {
      children = client.getChildren(dir);
    } catch (NoNodeException gone) {
      return;
    }
    String prefix = Protection.PREFIX + guid + "-";
    for (String child : children) {
      if (child.startsWith(prefix)) {
        delete(client, Paths.join(dir, child));
      }
    }
  }

  /** Deletes {@code path}; a node already gone counts as deleted. */
  static void delete(CoordinationClient client, String path) throws CoordinationException, InterruptedException {
    try {
      client.delete(path, -1);
    } catch (NoNodeException alreadyGone) {
      // deleted before (a retried delete whose first answer was lost, or the session ended)
    }
  }

  /**
   * Removes the node(s) of a failed acquire attempt now, if connected and the server
   * answers; else keeps trying in the background. Runs even if the calling
   * thread was interrupted (the interrupt is kept). A failure of the first
   * try is attached to {@code cause} (when there is one).
   *
   * <p>The nodes are looked for in the client's session now, not the one the
   * attempt began in: a create retried after that session ended made its node
   * in the new one, where nothing else would ever remove it, while a node of
   * the ended session went with it (between sessions, nothing is tried).
   */
  static void abandon(CoordinationClient client, String dir, String guid, Throwable cause) {
    BackgroundRetry.nowOrInBackground(client, client.sessionId(), "remove abandoned lock node under " + dir,
        () -> removeOwn(client, dir, guid)).ifPresent(failure -> {
          if (cause != null) {
            cause.addSuppressed(failure);
          }
        });
  }

  /** Throws if {@code session} is no longer the client's session. */
  static void checkSession(CoordinationClient client, long session, String path) throws SessionExpiredException {
    if (client.sessionId() != session) {
      throw new SessionExpiredException("the session " + Long.toHexString(session) + " that owned " + path
          + " ended", null);
    }
  }
}
