package dev.corral.recipes.election;

import dev.corral.client.AsyncCoordinationClient;
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
import dev.corral.client.Stat;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue of an election: the protected ephemeral-sequential nodes named
 * {@code <prefix><sequence>} under one path. Stateless: what one participant
 * holds is a {@link Candidacy}.
 */
final class Contenders {
  private static final Logger log = LoggerFactory.getLogger(Contenders.class);
  private static final CreateOptions NODE_OPTIONS =
      CreateOptions.builder(CreateMode.EPHEMERAL_SEQUENTIAL).creatingParentContainers().build();

  private final CoordinationClient client;
  private final String path;
  private final String prefix;

  Contenders(CoordinationClient client, String path, String prefix) {
    this.client = client;
    this.path = path;
    this.prefix = prefix;
  }

  /** A node of ours: its path, the session that owns it and its creation zxid (the fencing token). */
  record OwnNode(String path, long session, long czxid) {
    String name() {
      return Paths.name(path);
    }
  }

  /**
   * Where a node stands: gone, first, or behind {@code predecessor} (a full
   * path). {@code turnWatchable} when every sequential sibling with a lower
   * counter is a contender: then a {@link dev.corral.client.AddWatchMode#FIRST}
   * watch on the node fires exactly when it comes first in this queue (a
   * sibling made later has a higher counter, so none can get in front).
   */
  record Standing(Kind kind, String predecessor, boolean turnWatchable) {
    /**
     * How often a participant waiting on its FIRST watch reads the queue
     * again: the watch waits for every node whose name ends in a lower
     * counter, and a node given such a name by hand after the listing, which
     * no participant would wait for, would hold it back for good (the
     * mutex's waiters look again every 2 s for the same reason).
     */
    static final Duration TURN_RECHECK = Duration.ofSeconds(30);

    enum Kind { GONE, FIRST, BEHIND }

    static final Standing GONE = new Standing(Kind.GONE, "", false);
    static final Standing FIRST = new Standing(Kind.FIRST, "", false);
  }

  /** A node just created, with where it stands. */
  record Joined(OwnNode node, Standing standing) {}

  /**
   * Creates a node named with {@code guid} and lists its siblings in the same
   * multi (one round trip, one point of the log). Protection is not applied
   * inside a multi, so the name carries the GUID here; after a lost reply,
   * {@link #recover} finds the node.
   */
  Joined join(String guid, byte[] data) throws CoordinationException, InterruptedException {
    String nodePath = Protection.protect(Paths.join(path, prefix), guid);
    List<OpResult> results = client.multi(List.of(Op.create(nodePath, data, NODE_OPTIONS), Op.getChildren(path)));
    OpResult.CreateResult created = (OpResult.CreateResult) results.get(0);
    OpResult.GetChildrenResult children = (OpResult.GetChildrenResult) results.get(1);
    OwnNode node = new OwnNode(created.path(), created.stat().ephemeralOwner(), created.stat().czxid());
    return new Joined(node, standing(node, children.children(), Optional.of(created.stat())));
  }

  /** Where {@code node} stands now: siblings and the node's own Stat read at one point of the log. */
  Standing examine(OwnNode node) throws CoordinationException, InterruptedException {
    List<OpResult> results;
    try {
      results = client.multi(List.of(Op.getChildren(path), Op.exists(node.path())));
    } catch (NoNodeException parentGone) {
      return Standing.GONE; // older servers fail the whole multi of reads when the parent is missing
    }
    if (!(results.get(0) instanceof OpResult.GetChildrenResult children)) {
      return Standing.GONE; // a multi of reads answers a missing parent with NO_NODE in its place
    }
    OpResult.ExistsResult own = (OpResult.ExistsResult) results.get(1);
    return standing(node, children.children(), own.stat());
  }

  private Standing standing(OwnNode node, List<String> children, Optional<Stat> own) {
    // a node not owned by the current session is never ours to lead with
    if (own.isEmpty() || own.get().ephemeralOwner() != client.sessionId()) {
      return Standing.GONE;
    }
    List<String> queue = queue(children);
    int index = queue.indexOf(node.name());
    if (index < 0) {
      return Standing.GONE;
    }
    if (index == 0) {
      return Standing.FIRST;
    }
    return new Standing(Standing.Kind.BEHIND, Paths.join(path, queue.get(index - 1)),
        sequentialBefore(children, node.name()) == index);
  }

  /** How many of {@code children} carry a sequence counter lower than {@code name}'s. */
  private static long sequentialBefore(List<String> children, String name) {
    long ours = SequentialNames.sequenceOf(name);
    return children.stream().mapToLong(SequentialNames::sequenceOf).filter(seq -> seq >= 0 && seq < ours).count();
  }

  /**
   * After a create whose reply was lost: the node carrying {@code guid}, if it
   * exists and the current session owns it. One left by an earlier session is
   * deleted, never adopted.
   */
  Optional<OwnNode> recover(String guid) throws CoordinationException, InterruptedException {
    Optional<String> name = Protection.findOwn(children(), guid);
    if (name.isEmpty()) {
      return Optional.empty();
    }
    String nodePath = Paths.join(path, name.get());
    Optional<Stat> stat = client.exists(nodePath);
    if (stat.isEmpty()) {
      return Optional.empty();
    }
    if (stat.get().ephemeralOwner() == client.sessionId()) {
      return Optional.of(new OwnNode(nodePath, stat.get().ephemeralOwner(), stat.get().czxid()));
    }
    deleteIfPresent(nodePath);
    return Optional.empty();
  }

  /** Deletes {@code nodePath}; a missing node is fine. */
  void deleteIfPresent(String nodePath) throws CoordinationException, InterruptedException {
    try {
      client.delete(nodePath);
    } catch (NoNodeException alreadyGone) {
      // nothing to do
    }
  }

  /**
   * Deletes, without blocking, {@code nodePath} (if not null) and the node
   * carrying {@code guid} (if not null). Failures are logged: the nodes go
   * with their session at the latest.
   */
  void deleteAsync(String nodePath, String guid) {
    AsyncCoordinationClient async = client.async();
    if (nodePath != null) {
      async.delete(nodePath, -1).whenComplete((done, failure) -> logDeleteFailure(nodePath, failure));
    }
    if (guid != null) {
      async.getChildren(path)
          .thenCompose(children -> Protection.findOwn(children.names(), guid)
              .map(name -> async.delete(Paths.join(path, name), -1))
              .orElse(CompletableFuture.completedFuture(null)))
          .whenComplete((done, failure) -> logDeleteFailure(path + "/" + Protection.PREFIX + guid + "-*", failure));
    }
  }

  private static void logDeleteFailure(String what, Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    if (cause != null && !(cause instanceof NoNodeException)) {
      log.warn("could not delete {} ({}); it goes with its session", what, cause.getMessage());
    }
  }

  /** Every participant in queue order; the first is the leader. */
  List<Participant> participants() throws CoordinationException, InterruptedException {
    List<Participant> participants = new ArrayList<>();
    for (String name : queue(children())) {
      try {
        byte[] data = client.getData(Paths.join(path, name)).data();
        participants.add(new Participant(new String(data, StandardCharsets.UTF_8), participants.isEmpty()));
      } catch (NoNodeException leftMeanwhile) {
        // skip it
      }
    }
    return participants;
  }

  /** The first participant, or {@code Participant("", false)} when there is none (as Curator). */
  Participant leader() throws CoordinationException, InterruptedException {
    List<Participant> participants = participants();
    return participants.isEmpty() ? new Participant("", false) : participants.get(0);
  }

  private List<String> children() throws CoordinationException, InterruptedException {
    try {
      return client.getChildren(path);
    } catch (NoNodeException noParticipantsYet) {
      return List.of();
    }
  }

  /** The queue: our kind of node only, ordered by sequence whatever the protection prefix. */
  private List<String> queue(List<String> children) {
    return SequentialNames.sorted(
        children.stream().filter(name -> Protection.unprotected(name).startsWith(prefix)).toList());
  }
}
