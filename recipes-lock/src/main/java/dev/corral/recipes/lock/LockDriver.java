package dev.corral.recipes.lock;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.ConnectionLossException;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.NoNodeException;
import dev.corral.client.NodeDeletion;
import dev.corral.client.NodeTurn;
import dev.corral.client.Paths;
import dev.corral.client.Protection;
import dev.corral.client.SequentialNames;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The acquire loop shared by every lock type: create a protected lock node and
 * list its siblings in one round trip, ask the {@link OrderingRule}, wait for
 * the turn of our node or for the one node the rule names (no herd), and
 * repeat until granted or the deadline passes. Whatever ends an attempt other than a grant removes the
 * attempt's node.
 */
final class LockDriver {
  /** How long one wait lasts before the loop re-checks its session (a LOST session fires no watch). */
  private static final long WAIT_SLICE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final CoordinationClient client;
  private final String dir;
  private final Supplier<String> prefix;
  private final OrderingRule rule;
  private final Predicate<String> participant;
  private final boolean requeue;
  private final Nudges nudges;

  /**
   * A granted lock node.
   *
   * @param path the node
   * @param token its creation zxid
   * @param session the session owning it
   */
  record Granted(String path, long token, long session) {}

  /**
   * A driver for the nodes under {@code dir}. The rule orders the sequential
   * nodes whose (unprotected) names {@code participant} accepts; other nodes
   * there (a queue's items, say) are not in the way, as in Curator, where
   * they sort after every lock node. With {@code requeue}, an attempt
   * whose node is lost while it waits (its session ended, or someone deleted
   * it) queues again with a new node, in the current session, until the
   * deadline (as Curator's lock does); without it, that loss is thrown.
   */
  LockDriver(CoordinationClient client, String dir, Supplier<String> prefix, OrderingRule rule,
      Predicate<String> participant, boolean requeue) {
    this(client, dir, prefix, rule, participant, requeue, new Nudges());
  }

  /** As above; a waiter for any change of the children also wakes when {@code nudges} is nudged. */
  LockDriver(CoordinationClient client, String dir, Supplier<String> prefix, OrderingRule rule,
      Predicate<String> participant, boolean requeue, Nudges nudges) {
    this.client = client;
    this.dir = dir;
    this.prefix = prefix;
    this.rule = rule;
    this.participant = participant;
    this.requeue = requeue;
    this.nudges = nudges;
  }

  String dir() {
    return dir;
  }

  /**
   * Acquires a node, or returns empty once the deadline passed, with the
   * attempt's node removed. Any failure removes the node too (in the
   * background if the server cannot be reached) before it is thrown.
   */
  Optional<Granted> acquire(Deadline deadline, byte[] data) throws CoordinationException, InterruptedException {
    while (true) {
      long session = connectedSession(deadline);
      String guid = Protection.newGuid();
      try {
        LockNodes.Entry entry = LockNodes.create(client, dir, prefix.get(), data, guid, deadline);
        if (entry.session() != session) {
          throw new SessionExpiredException("the session changed while creating " + entry.path(), null);
        }
        Optional<Granted> granted = waitForGrant(entry, guid, deadline);
        if (granted.isEmpty()) {
          LockNodes.abandon(client, dir, guid, null);
        }
        return granted;
      } catch (SessionExpiredException | NoNodeException nodeLost) {
        LockNodes.abandon(client, dir, guid, nodeLost);
        if (!requeue || deadline.expired()) {
          throw nodeLost;
        }
        // the node went with its session (or was deleted): never granted; queue again with a new one
      } catch (Throwable failure) {
        LockNodes.abandon(client, dir, guid, failure);
        throw failure;
      }
    }
  }

  private long connectedSession(Deadline deadline) throws CoordinationException, InterruptedException {
    while (!client.state().isConnected() || client.sessionId() == 0) {
      if (deadline.expired()) {
        throw new ConnectionLossException("not connected", null);
      }
      LockNodes.pause(client, deadline, 0);
    }
    return client.sessionId();
  }

  private Optional<Granted> waitForGrant(LockNodes.Entry entry, String guid, Deadline deadline)
      throws CoordinationException, InterruptedException {
    List<String> siblings = entry.siblings();
    int failures = 0;
    while (true) {
      if (!deadline.awaitConnection(client)) {
        return Optional.empty(); // no call is made while the connection is down: it would outlast the deadline
      }
      try {
        if (siblings == null) {
          siblings = siblings();
        }
        LockNodes.checkSession(client, entry.session(), entry.path());
        if (!siblings.contains(entry.name())) {
          throw new NoNodeException("lock node " + entry.path() + " was deleted while waiting", entry.path());
        }
        siblings = withoutStrayTwins(siblings, entry.name(), guid);
        List<String> participants = participants(siblings);
        OrderingRule.Verdict verdict = rule.decide(participants, entry.name());
        if (verdict.granted()) {
          // the listing proves the node: read in the node's session (checked above, after the read), it
          // holds a name that only this attempt uses, and an ephemeral node goes in the same change
          // that ends its session; so a waiter whose session ended meanwhile is never granted
          return Optional.of(new Granted(entry.path(), entry.czxid(), entry.session()));
        }
        if (deadline.expired()) {
          return Optional.empty();
        }
        long slice = deadline.sliceNanos(WAIT_SLICE_NANOS);
        if (verdict.untilFirst() && siblings.indexOf(entry.name()) != participants.indexOf(entry.name())) {
          // a FIRST watch would wait for the other nodes before ours too: watch our predecessor instead
          NodeDeletion.await(client, Paths.join(dir, predecessor(participants, entry.name())), slice,
              TimeUnit.NANOSECONDS);
          siblings = null;
        } else if (verdict.untilFirst()) {
          switch (NodeTurn.await(client, entry.path(), slice, TimeUnit.NANOSECONDS)) {
            case FIRST -> {
              // told on the node's session that no earlier node is left; granted as after a listing
              LockNodes.checkSession(client, entry.session(), entry.path());
              return Optional.of(new Granted(entry.path(), entry.czxid(), entry.session()));
            }
            case GONE -> throw new NoNodeException("lock node " + entry.path() + " was deleted while waiting",
                entry.path());
            case WAITING -> siblings = null;
          }
        } else if (verdict.watch().isPresent()) {
          NodeDeletion.await(client, Paths.join(dir, verdict.watch().get()), slice, TimeUnit.NANOSECONDS);
          siblings = null;
        } else {
          siblings = awaitChildrenChange(siblings, slice);
        }
      } catch (CoordinationException e) {
        if (!e.code().isRetryable() || deadline.expired()) {
          throw e;
        }
        siblings = null;
        LockNodes.pause(client, deadline, ++failures);
      }
    }
  }

  private List<String> siblings() throws CoordinationException, InterruptedException {
    try {
      return SequentialNames.sorted(client.getChildren(dir));
    } catch (NoNodeException gone) {
      return List.of();
    }
  }

  /** The participants among {@code siblings}, in their order: ours, and every node that may stand in its way. */
  private List<String> participants(List<String> siblings) {
    return siblings.stream().filter(name -> participant.test(Protection.unprotected(name))).toList();
  }

  /** The participant just before ours (the rule asked to wait for our turn, so there is one). */
  private static String predecessor(List<String> participants, String ours) {
    return participants.get(participants.indexOf(ours) - 1);
  }

  /**
   * Drops (and deletes) other nodes carrying this attempt's GUID: a create whose
   * lost reply was retried may have landed twice, and the twin must not stand
   * in our own way.
   */
  private List<String> withoutStrayTwins(List<String> siblings, String ours, String guid)
      throws CoordinationException, InterruptedException {
    String own = Protection.PREFIX + guid + "-";
    List<String> kept = new ArrayList<>(siblings.size());
    for (String name : siblings) {
      if (name.startsWith(own) && !name.equals(ours)) {
        LockNodes.delete(client, Paths.join(dir, name));
      } else {
        kept.add(name);
      }
    }
    return kept;
  }

  /**
   * Waits (at most {@code nanos}) for the children of the lock path to differ from {@code seen}, or a nudge;
   * returns them.
   */
  private List<String> awaitChildrenChange(List<String> seen, long nanos)
      throws CoordinationException, InterruptedException {
    CountDownLatch changed = new CountDownLatch(1);
    AtomicBoolean fired = new AtomicBoolean();
    Watcher watcher = event -> {
      fired.set(true);
      changed.countDown();
    };
    Runnable nudged = changed::countDown;
    nudges.add(nudged);
    try {
      List<String> now = SequentialNames.sorted(client.getChildren(dir, watcher));
      if (!now.equals(seen)) {
        return now;
      }
      changed.await(nanos, TimeUnit.NANOSECONDS);
    } catch (NoNodeException gone) {
      return List.of();
    } finally {
      nudges.remove(nudged);
    }
    if (!fired.get()) { // timed out, or nudged
      client.async().removeWatches(dir, watcher, WatcherType.CHILDREN, true); // not waiting for a broken connection
    }
    return siblings();
  }
}
