package dev.corral.recipes.election;

import dev.corral.client.recipe.Deadline;
import dev.corral.client.AddWatchMode;
import dev.corral.client.ClientClosedException;
import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.EventType;
import dev.corral.client.PathRules;
import dev.corral.client.Stat;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.recipes.election.Contenders.Standing;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election by latch, as Curator's {@code LeaderLatch}: of all started
 * latches on one path, one is leader until it is closed or loses its
 * connection.
 *
 * <p>Each latch queues a protected ephemeral-sequential node (its id as data)
 * under the path, creating it and listing its siblings in one multi; the
 * lowest sequence leads. Every other latch leaves a one-shot
 * {@link AddWatchMode#FIRST} watch on its own node, whose event tells it that
 * no earlier node is left: it leads on that event, with no further read. (A
 * latch behind a sequential node that is not a contender, which such a watch
 * would wait for too, watches its predecessor instead, as Curator's does.)
 *
 * <ul>
 *   <li>On SUSPENDED or LOST, leadership is given up at once (listeners hear
 *       {@code notLeader}), on a thread that takes the connection's news,
 *       even while the latch's own thread waits in a call.
 *   <li>After RECONNECTED with the same session, leadership returns if the
 *       node is still first and still owned by the session
 *       ({@code Stat.ephemeralOwner == client.sessionId()}).
 *   <li>After a new session (LOST), the latch joins again with a new node; a
 *       node left by the earlier session is deleted, never taken as its own.
 *   <li>The leader watches its own node: if anyone deletes it, leadership is
 *       given up and the latch joins again at the end of the queue.
 * </ul>
 *
 * <p>Every term has a {@link #fencingToken() fencing token}: the creation
 * zxid of the leader's node, larger for every later leader. Leadership
 * regained on the same node after a suspension keeps its term and token (no
 * other latch can have led meanwhile).
 *
 * <p>Decisions are made on the latch's own thread, in the order of the events
 * that cause them. Listeners are told in order: those added without an
 * executor on the thread that changed leadership, as in Curator, before
 * {@link #await()} returns and before {@link #close(CloseMode)} returns;
 * those added with one on it. Thread-safe. Started once; closing twice is
 * harmless.
 */
public final class LeaderLatch implements AutoCloseable {
  /** Whether listeners hear {@code notLeader} when the latch is closed while leader. */
  public enum CloseMode {
    /** Listeners are not told. */
    SILENT,
    /** Listeners hear {@code notLeader}. */
    NOTIFY_LEADER
  }

  /** A latch's lifecycle, advanced forward only (Curator's names). */
  public enum State {
    /** Made, not started. */
    LATENT,
    /** Started: taking part in the election. */
    STARTED,
    /** Closed: out of the election for good. */
    CLOSED
  }

  private static final Logger log = LoggerFactory.getLogger(LeaderLatch.class);
  private static final long MAX_RETRY_DELAY_MS = 2_000;
  private static final long CLOSE_WAIT_SECONDS = 30;

  private final CoordinationClient client;
  private final String path;
  private final String id;
  private final CloseMode closeMode;
  private final Contenders contenders;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final CopyOnWriteArrayList<Registration> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService loop;
  /**
   * Where the connection's news is taken: neither the loop, which may be in
   * a call, nor the client's event thread, which a listener told while
   * leadership changes (holding its lock) may need for the answer to a call.
   */
  private final ExecutorService connectionNews;
  private final ConnectionStateListener connectionListener = (c, newState) -> {
    if (!canLead(newState)) {
      // at once: the loop may be in a call that fails only once the session is lost
      changeLeadership(false, 0, true);
    }
    submit(this::onStateChanged);
  };
  private final Watcher queueWatcher = event -> {
    if (event.type() == EventType.NODE_FIRST) {
      submit(() -> turnCame(event.path()));
    } else if (!event.type().isWatchRemoval()) { // our own drop of a LeftWatch: nothing changed
      submit(this::reconcile);
    }
  };
  private final Object leadership = new Object();

  // confined to the loop thread (and to close, once the loop has ended)
  private final Candidacy candidacy;
  private boolean connected;
  private long retryDelayMs;
  private ScheduledFuture<?> turnRecheck; // the next look at the queue while waiting for the turn, if any
  private volatile long turnRecheckMillis = Standing.TURN_RECHECK.toMillis();
  private volatile Thread loopThread;
  private volatile LeftWatch watched; // the watch queueWatcher was last left as (written on the loop thread)
  private volatile String ourPath = ""; // the node standing for this latch, "" when none (written on the loop thread)
  private volatile String lastPathIsLeader; // the node with which this latch last led (written on the loop thread)

  // guarded by leadership
  private volatile boolean leader;
  private long token;
  private final ArrayDeque<Boolean> untold = new ArrayDeque<>(); // changes still to tell the listeners
  private boolean telling;

  private record Registration(LeaderLatchListener listener, SerialExecutor executor) {}

  /** A latch with an empty participant id, closing {@link CloseMode#SILENT silently}. */
  public LeaderLatch(CoordinationClient client, String path) {
    this(client, path, "", CloseMode.SILENT);
  }

  /** A latch closing {@link CloseMode#SILENT silently}. */
  public LeaderLatch(CoordinationClient client, String path, String id) {
    this(client, path, id, CloseMode.SILENT);
  }

  /**
   * A latch on {@code path} with participant id {@code id} (stored as its
   * node's data) and the close mode used by {@link #close()}.
   */
  public LeaderLatch(CoordinationClient client, String path, String id, CloseMode closeMode) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid latch path: " + rule);
    });
    this.id = Objects.requireNonNull(id, "id");
    this.closeMode = Objects.requireNonNull(closeMode, "closeMode");
    this.contenders = new Contenders(client, path, "latch-");
    byte[] data = id.getBytes(StandardCharsets.UTF_8);
    this.candidacy = new Candidacy(client, contenders, () -> data);
    this.loop = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = Threads.daemon("leader-latch " + path).newThread(runnable);
      loopThread = thread;
      return thread;
    });
    this.connectionNews = Executors.newSingleThreadExecutor(Threads.daemon("leader-latch-connection " + path));
  }

  /**
   * Joins the election. Returns at once; leadership comes later (see
   * {@link #await()} and the listeners).
   *
   * @throws IllegalStateException if started before, or closed
   */
  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException(state.get() == State.STARTED
          ? "this latch is already started" : "this latch is closed; a latch cannot be restarted");
    }
    client.addConnectionStateListener(connectionListener, connectionNews);
    submit(() -> {
      connected = canLead(client.state());
      reconcile();
    });
  }

  /** For tests: how often a latch waiting for its turn reads the queue again ({@link Standing#TURN_RECHECK} otherwise). */
  void recheckTurnEvery(Duration period) {
    turnRecheckMillis = period.toMillis();
  }

  /** Closes with the close mode given at construction. */
  @Override
  public void close() {
    close(closeMode);
  }

  /**
   * Leaves the election: its node is deleted (if the connection is down, once
   * it is back with the same session, without waiting for it; a lost session
   * took the node already), its watch is dropped (the client keeps nothing of a closed
   * latch), and listeners hear {@code notLeader} if it was
   * leader and {@code mode} is NOTIFY_LEADER. Waiters in {@link #await()} are
   * released. Closing twice, or closing a latch never started, is harmless.
   */
  public void close(CloseMode mode) {
    Objects.requireNonNull(mode, "mode");
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    if (previous == State.STARTED) {
      client.removeConnectionStateListener(connectionListener);
      connectionNews.shutdown();
      stopLoop();
      changeLeadership(false, 0, mode == CloseMode.NOTIFY_LEADER);
      leaveQueue(); // first: the next latch's wait ends with this delete, and nothing else needs doing before it
      LeftWatch left = watched;
      if (left != null) {
        left.drop(client);
      }
    } else {
      loop.shutdownNow(); // never started: it has no thread, but is done with
      connectionNews.shutdownNow();
    }
    synchronized (leadership) {
      leadership.notifyAll();
    }
  }

  /** True while this latch is started and leader. */
  public boolean hasLeadership() {
    return state.get() == State.STARTED && leader;
  }

  /**
   * The fencing token of the current term: the creation zxid of this latch's
   * node, larger than every earlier leader's. Hand it to the resource being
   * protected, which should refuse any smaller token it has seen.
   *
   * @throws IllegalStateException if this latch is not leader
   */
  public long fencingToken() {
    synchronized (leadership) {
      if (!hasLeadership()) {
        throw new IllegalStateException("this latch is not the leader");
      }
      return token;
    }
  }

  /**
   * Waits until this latch is leader.
   *
   * @throws EOFException if the latch is not started, or is closed (also while waiting), as Curator's
   */
  public void await() throws InterruptedException, EOFException {
    synchronized (leadership) {
      while (!hasLeadership()) {
        if (state.get() != State.STARTED) {
          throw new EOFException(state.get() == State.LATENT
              ? "the latch is not started" : "the latch was closed");
        }
        leadership.wait();
      }
    }
  }

  /**
   * Waits until this latch is leader, at most {@code time}. False if the time
   * passed first, or the latch is not started or was closed.
   */
  public boolean await(long time, TimeUnit unit) throws InterruptedException {
    Deadline deadline = Deadline.after(time, unit);
    synchronized (leadership) {
      while (!hasLeadership() && state.get() == State.STARTED) {
        long left = deadline.remainingNanos();
        if (left == 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(leadership, left);
      }
      return hasLeadership();
    }
  }

  /** This latch's participant id. */
  /** Where the latch is in its lifecycle. */
  public State getState() {
    return state.get();
  }

  /**
   * The path of the node standing for this latch in the election, if it has
   * one now: the one it leads with by the time listeners hear {@code isLeader}
   * and {@link #await()} returns (a new one after a lost session).
   */
  public Optional<String> getOurPath() {
    return ourPath.isEmpty() || state.get() == State.CLOSED ? Optional.empty() : Optional.of(ourPath);
  }

  /**
   * The path of the node with which this latch last became leader, as Curator's {@code getLastPathIsLeader()}:
   * kept after leadership ends (so a former leader can tell which term was its own); null if it never led.
   */
  public String getLastPathIsLeader() {
    return lastPathIsLeader;
  }

  public String getId() {
    return id;
  }

  /** The leader as the queue shows it, or {@code Participant("", false)} when there is none. */
  public Participant getLeader() throws CoordinationException, InterruptedException {
    return contenders.leader();
  }

  /** Every participant in queue order; the first is the leader. */
  public Collection<Participant> getParticipants() throws CoordinationException, InterruptedException {
    return contenders.participants();
  }

  /**
   * Adds a listener told on the thread that changes leadership (the latch's
   * own, the one closing it, or the one that takes the news of a lost
   * connection), before {@link #await()} returns: keep it
   * short, as the latch decides nothing else meanwhile, or give it an
   * executor. Adding a listener added before replaces that registration.
   */
  public void addListener(LeaderLatchListener listener) {
    addListener(listener, Runnable::run);
  }

  /**
   * Adds a listener told on {@code executor}, one call at a time, in order.
   * Adding a listener added before replaces that registration (it is told
   * once, on the new executor), as in Curator.
   */
  public void addListener(LeaderLatchListener listener, Executor executor) {
    Registration registration = new Registration(Objects.requireNonNull(listener, "listener"),
        new SerialExecutor(Objects.requireNonNull(executor, "executor")));
    synchronized (listeners) {
      for (int i = 0; i < listeners.size(); i++) {
        if (listeners.get(i).listener() == listener) {
          listeners.set(i, registration);
          return;
        }
      }
      listeners.add(registration);
    }
  }

  /** Removes {@code listener}. */
  public void removeListener(LeaderLatchListener listener) {
    synchronized (listeners) {
      listeners.removeIf(registration -> registration.listener() == listener);
    }
  }

  // ---- the loop thread ----

  /**
   * The loop's part of a change of connection state (leadership was given up
   * at once already if it was lost). Its news may come after the loop led
   * again, in a new session: the client's state now is what counts.
   */
  private void onStateChanged() {
    connected = canLead(client.state());
    if (connected) {
      reconcile();
    } else {
      changeLeadership(false, 0, true);
    }
  }

  /** Brings leadership in line with the queue; idempotent, run after every event. */
  private void reconcile() {
    decide(candidacy::stand);
  }

  /**
   * The FIRST watch on {@code node} fired: if it is still our node, of the
   * current session, no earlier node is left and we lead, without reading
   * the queue again (the event was sent on the node's session, after every
   * earlier node had gone).
   */
  private void turnCame(String node) {
    if (watched != null && watched.path().equals(node) && watched.type() == WatcherType.FIRST) {
      watched = null; // one-shot: the server and the client are done with it
    }
    // the client's own state, not the loop's: an event that waited in the loop's queue behind a loss of the
    // session (whose news is queued after it) is not taken as the turn
    decide(() -> candidacy.isCurrent(node) && canLead(client.state()) ? Standing.FIRST : candidacy.stand());
  }

  /** Where our node stands, read or told. */
  private interface StandingSource {
    Standing get() throws CoordinationException, InterruptedException;
  }

  private void decide(StandingSource source) {
    if (state.get() != State.STARTED || !connected) {
      return;
    }
    try {
      Standing standing = standing(source);
      switch (standing.kind()) {
        case FIRST -> {
          cancelTurnRecheck();
          Contenders.OwnNode own = candidacy.node().orElseThrow();
          lead(own.path(), own.czxid());
          // a leader watches its own node: if it goes (deleted, or its session expired), so does leadership
          if (watch(own.path()).isEmpty()) {
            submit(this::reconcile);
          }
        }
        case GONE -> {
          // our node was deleted under us, or its session ended: join again (with a pause, never a storm)
          follow();
          retryLater("its node is gone");
          return;
        }
        case BEHIND -> {
          follow();
          if (standing.turnWatchable()) {
            awaitTurn(candidacy.node().orElseThrow().path());
          } else if (watch(standing.predecessor()).isEmpty()) {
            submit(this::reconcile);
          }
        }
        default -> throw new AssertionError(standing);
      }
      retryDelayMs = 0;
    } catch (InterruptedException closing) {
      Thread.currentThread().interrupt();
    } catch (ClientClosedException e) {
      log.warn("the client of latch {} on {} was closed; the latch no longer takes part", id, path);
      follow();
    } catch (CoordinationException e) {
      follow();
      retryLater(e.getMessage());
    }
  }

  /**
   * Reads {@code source}, then records the node it left us with (also when it
   * failed after changing it): before leadership changes, so {@link
   * #getOurPath()} names it when listeners hear and {@link #await()} returns,
   * as Curator's reset() sets its node before checking leadership.
   */
  private Standing standing(StandingSource source) throws CoordinationException, InterruptedException {
    try {
      return source.get();
    } finally {
      ourPath = candidacy.node().map(Contenders.OwnNode::path).orElse("");
    }
  }

  /** Leaves queueWatcher on {@code node} through exists, forgetting any other watch left before. */
  private Optional<Stat> watch(String node) throws CoordinationException, InterruptedException {
    watched = LeftWatch.replace(client, watched, new LeftWatch(node, queueWatcher, WatcherType.DATA));
    return client.exists(node, queueWatcher);
  }

  /**
   * Leaves a FIRST watch on our {@code node}, forgetting any other watch left
   * before. Its NODE_FIRST comes at once if no earlier node is left by now,
   * its NODE_DELETED if the node is gone.
   */
  private void awaitTurn(String node) throws CoordinationException, InterruptedException {
    watched = LeftWatch.replace(client, watched, new LeftWatch(node, queueWatcher, WatcherType.FIRST));
    client.addWatch(node, AddWatchMode.FIRST, queueWatcher);
    cancelTurnRecheck();
    try {
      turnRecheck = loop.schedule(this::reconcile, turnRecheckMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // closing
    }
  }

  private void cancelTurnRecheck() {
    if (turnRecheck != null) {
      turnRecheck.cancel(false);
      turnRecheck = null;
    }
  }

  private void retryLater(String why) {
    retryDelayMs = Math.min(MAX_RETRY_DELAY_MS, Math.max(50, retryDelayMs * 2));
    log.debug("latch {} on {}: {}; trying again in {} ms", id, path, why, retryDelayMs);
    try {
      loop.schedule(this::reconcile, retryDelayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      // closing
    }
  }

  /**
   * Leads, unless the connection went meanwhile (checked under the lock that
   * the connection listener drops leadership under, so it cannot come in
   * between): the news of that loss, queued for this thread, is still to come.
   */
  private void lead(String node, long czxid) {
    synchronized (leadership) {
      if (!canLead(client.state())) {
        return;
      }
      lastPathIsLeader = node;
      changeLeadership(true, czxid, true);
    }
  }

  private void follow() {
    changeLeadership(false, 0, true);
  }

  /**
   * Sets leadership and, if it changed and {@code tell}, tells the listeners,
   * still holding the lock that {@link #await()} waits on: it returns only
   * once the listeners told on this thread have heard.
   */
  private void changeLeadership(boolean value, long czxid, boolean tell) {
    synchronized (leadership) {
      if (leader == value) {
        return;
      }
      leader = value;
      token = value ? czxid : 0;
      leadership.notifyAll();
      if (tell) {
        tellListeners(value);
      }
    }
  }

  /**
   * Tells every listener, in turn. A change made by a listener as it is told
   * (a close from isLeader, on this thread) is told once every listener heard
   * the one before, so that each hears isLeader and notLeader alternate.
   * The caller holds the leadership lock.
   */
  private void tellListeners(boolean isLeader) {
    untold.add(isLeader);
    if (telling) {
      return;
    }
    telling = true;
    try {
      Boolean next;
      while ((next = untold.poll()) != null) {
        for (Registration registration : listeners) {
          LeaderLatchListener listener = registration.listener();
          registration.executor().execute(next ? listener::isLeader : listener::notLeader);
        }
      }
    } finally {
      telling = false;
    }
  }

  private void submit(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException closed) {
      // the latch is closed: nothing more to decide
    }
  }

  private static boolean canLead(ConnectionState state) {
    return state.isConnected() && state != ConnectionState.READ_ONLY;
  }

  // ---- closing ----

  private void stopLoop() {
    loop.shutdownNow();
    if (Thread.currentThread() == loopThread) {
      return; // closed by a listener running on the latch's own thread
    }
    boolean interrupted = false;
    try {
      while (true) {
        try {
          if (!loop.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
            log.warn("latch {} on {}: its thread did not stop within {} s", id, path, CLOSE_WAIT_SECONDS);
          }
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void leaveQueue() {
    if (!client.state().isConnected()) {
      candidacy.withdrawWhenReconnected();
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      candidacy.withdraw();
    } catch (CoordinationException e) {
      log.debug("latch {} on {}: could not delete its node now ({}); will when reconnected", id, path, e.getMessage());
      candidacy.withdrawWhenReconnected();
    } catch (InterruptedException e) {
      interrupted = true;
      candidacy.withdrawWhenReconnected();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
