package dev.corral.recipes.election;

import dev.corral.client.recipe.Signal;
import dev.corral.client.AddWatchMode;
import dev.corral.client.ClientClosedException;
import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.EventType;
import dev.corral.client.NoNodeException;
import dev.corral.client.PathRules;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.recipes.election.Contenders.Standing;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election by turns, as Curator's {@code LeaderSelector}: participants
 * queue on a path, and the first runs
 * {@link LeaderSelectorListener#takeLeadership} on the selector's thread;
 * returning (or throwing) ends its leadership and deletes its node, letting the
 * next one lead. With {@link #autoRequeue()} it queues again each time.
 *
 * <p>The queue is a mutex's: protected ephemeral-sequential nodes (the id as
 * data), created with their siblings listed in one multi; the lowest leads;
 * each waiter leaves a one-shot FIRST watch on its own node and leads on its
 * event, with no further read (behind a sequential node that is no
 * participant, it watches its predecessor instead). A participant leads only while
 * connected and while its node is first and owned by the current session; on
 * SUSPENDED or LOST the leader's thread is interrupted. An attempt that fails
 * or is interrupted deletes its node (including one made by a create whose
 * reply was lost). A waiting attempt whose node goes (deleted by someone, or
 * with its session) is over, as in Curator: {@link #requeue()} (or
 * autoRequeue) queues again.
 *
 * <p>Thread-safe. Started once; closing twice is harmless.
 */
public final class LeaderSelector implements AutoCloseable {
  private enum State { LATENT, STARTED, CLOSED }

  /** Where the running attempt is. */
  private enum Phase { IDLE, WAITING, LEADING, WITHDRAWING }

  private static final Logger log = LoggerFactory.getLogger(LeaderSelector.class);
  private static final long MAX_RETRY_DELAY_MS = 2_000;

  private final CoordinationClient client;
  private final String path;
  private final LeaderSelectorListener listener;
  private final Executor executor;
  private final ExecutorService ownExecutor;
  private final Contenders contenders;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final ConnectionStateListener connectionListener = this::onStateChanged;
  private volatile boolean autoRequeue;
  private volatile String id = "";
  private volatile long turnRecheckNanos = Standing.TURN_RECHECK.toNanos();

  // guarded by this
  private boolean queued;
  private boolean queuedAfterTurn; // requeue() was called while the turn was ending
  private Thread attemptThread;
  private Phase phase = Phase.IDLE;

  /** A selector on {@code path} running {@code listener} on a thread of its own. */
  public LeaderSelector(CoordinationClient client, String path, LeaderSelectorListener listener) {
    this(client, path, null, listener);
  }

  /**
   * A selector on {@code path} running {@code listener} on {@code executor}
   * (one task per turn; the executor is not shut down by {@link #close()}).
   */
  public LeaderSelector(CoordinationClient client, String path, Executor executor, LeaderSelectorListener listener) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException("invalid selector path: " + rule);
    });
    this.listener = Objects.requireNonNull(listener, "listener");
    this.ownExecutor = executor == null
        ? Executors.newSingleThreadExecutor(Threads.daemon("leader-selector " + path)) : null;
    this.executor = executor == null ? ownExecutor : executor;
    this.contenders = new Contenders(client, path, "lock-");
  }

  /**
   * Queues for leadership once (more with {@link #autoRequeue()}).
   *
   * @throws IllegalStateException if started before, or closed
   */
  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException(state.get() == State.STARTED
          ? "this selector is already started" : "this selector is closed; a selector cannot be restarted");
    }
    client.addConnectionStateListener(connectionListener);
    enqueue();
  }

  /** From now on, queue again every time leadership ends. */
  public void autoRequeue() {
    autoRequeue = true;
  }

  /**
   * Queues again if not queued or leading now. Once {@code takeLeadership}
   * has returned ({@link #hasLeadership()} false), the turn still ending (its
   * node being deleted) counts as not queued, as in Curator (CURATOR-671):
   * the next turn starts once it has ended.
   *
   * @return true if queued now (or for when the ending turn is over), false if already queued or leading
   * @throws IllegalStateException if not started, or closed
   */
  public boolean requeue() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("this selector is " + state.get().name().toLowerCase());
    }
    return enqueue();
  }

  /** Interrupts the thread running {@code takeLeadership}, if this participant leads now. */
  public synchronized void interruptLeadership() {
    if (phase == Phase.LEADING) {
      attemptThread.interrupt();
    }
  }

  /** True while {@code takeLeadership} runs. */
  public synchronized boolean hasLeadership() {
    return phase == Phase.LEADING;
  }

  /** The id stored in this participant's node ({@code ""} unless set). */
  public String getId() {
    return id;
  }

  /** Sets the id stored in this participant's next node. */
  public void setId(String id) {
    this.id = Objects.requireNonNull(id, "id");
  }

  /** Every participant in queue order; the first is the leader. */
  public Collection<Participant> getParticipants() throws CoordinationException, InterruptedException {
    return contenders.participants();
  }

  /** The leader as the queue shows it, or {@code Participant("", false)} when there is none. */
  public Participant getLeader() throws CoordinationException, InterruptedException {
    return contenders.leader();
  }

  /**
   * Leaves: interrupts the running turn (waiting or leading), waits for it to
   * end and to delete its node (if the connection is down, the node is deleted
   * once it is back with the same session, without waiting for it), and stops
   * the selector's own thread. Closing twice, or
   * closing a selector never started, is harmless. Called from
   * {@code takeLeadership}, it interrupts that turn and returns at once.
   */
  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    if (previous == State.STARTED) {
      client.removeConnectionStateListener(connectionListener);
      awaitTurnEnd();
    }
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
  }

  private void awaitTurnEnd() {
    boolean interrupted = false;
    synchronized (this) {
      if (attemptThread != null) {
        attemptThread.interrupt(); // waiting, leading, or waiting to delete its node: all end now
      }
      while (attemptThread != null && attemptThread != Thread.currentThread()) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean enqueue() {
    synchronized (this) {
      if (state.get() != State.STARTED) {
        return false;
      }
      if (queued) {
        if (phase != Phase.WITHDRAWING || queuedAfterTurn) {
          return false;
        }
        queuedAfterTurn = true; // the turn's end queues again
        return true;
      }
      queued = true;
    }
    try {
      executor.execute(this::turn);
      return true;
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        queued = false;
        notifyAll();
      }
      log.warn("selector {} on {}: its executor rejected a turn", id, path, e);
      return false;
    }
  }

  /** One turn: queue, wait until first, lead, leave. */
  private void turn() {
    synchronized (this) {
      if (state.get() != State.STARTED) {
        queued = false;
        notifyAll();
        return;
      }
      attemptThread = Thread.currentThread();
      phase = Phase.WAITING;
    }
    Candidacy candidacy = new Candidacy(client, contenders, () -> id.getBytes(StandardCharsets.UTF_8));
    try {
      boolean first;
      do {
        first = awaitTurn(candidacy);
      } while (first && !lead());
    } catch (InterruptedException e) {
      log.debug("selector {} on {}: turn interrupted", id, path);
    } catch (CoordinationException e) {
      log.warn("selector {} on {}: turn failed", id, path, e);
    } catch (VirtualMachineError e) {
      throw e; // the JVM itself is failing
    } catch (Exception | Error e) {
      // as Curator: whatever the leader's work threw ends this turn only (an AssertionError too), so autoRequeue holds
      log.error("selector {} on {}: takeLeadership threw", id, path, e);
    } finally {
      synchronized (this) {
        phase = Phase.WITHDRAWING;
      }
      try {
        withdraw(candidacy);
      } finally {
        // even if withdrawing failed unexpectedly: a turn that never ends would make close() wait forever
        boolean again;
        synchronized (this) {
          phase = Phase.IDLE;
          attemptThread = null;
          queued = false;
          again = autoRequeue || queuedAfterTurn;
          queuedAfterTurn = false;
          notifyAll();
        }
        Thread.interrupted(); // interrupts were meant for this turn only
        if (again) {
          enqueue();
        }
      }
    }
  }

  /**
   * Blocks until our node is first and owned by the current session, while
   * connected: true. False if our node went meanwhile (deleted, or with its
   * session): as in Curator, that ends the turn (autoRequeue queues again).
   */
  private boolean awaitTurn(Candidacy candidacy) throws CoordinationException, InterruptedException {
    long retryDelayMs = 0;
    LeftWatch watched = null;
    AtomicReference<String> toldFirst = new AtomicReference<>();
    try (Signal signal = Signal.open(client)) {
      Watcher turn = event -> {
        if (event.type() == EventType.NODE_FIRST) {
          toldFirst.set(event.path());
        }
        signal.process(event);
      };
      try {
        while (true) {
          long seen = signal.version();
          if (!canLead(client.state())) {
            signal.awaitChange(seen, Long.MAX_VALUE);
            continue;
          }
          try {
            // told by our FIRST watch that no earlier node is left: no need to read the queue again
            String told = toldFirst.getAndSet(null);
            Standing standing = told != null && candidacy.isCurrent(told) ? Standing.FIRST : candidacy.standInSession();
            if (standing.kind() == Standing.Kind.FIRST) {
              return true;
            }
            if (standing.kind() == Standing.Kind.GONE) {
              return false; // our node was deleted under us, or went with its session
            }
            if (standing.kind() == Standing.Kind.BEHIND) {
              retryDelayMs = 0;
              if (standing.turnWatchable()) {
                String own = candidacy.node().orElseThrow().path();
                watched = LeftWatch.replace(client, watched, new LeftWatch(own, turn, WatcherType.FIRST));
                try {
                  client.addWatch(own, AddWatchMode.FIRST, turn);
                } catch (NoNodeException gone) {
                  return false; // our node was deleted under us
                }
                // looks again now and then: see Standing.TURN_RECHECK
                signal.awaitChange(seen, turnRecheckNanos);
              } else {
                watched = LeftWatch.replace(client, watched,
                    new LeftWatch(standing.predecessor(), signal, WatcherType.DATA));
                if (client.exists(watched.path(), signal).isPresent()) {
                  signal.awaitChange(seen, Long.MAX_VALUE);
                }
              }
              continue;
            }
          } catch (CoordinationException e) {
            if (e instanceof ClientClosedException || !(e.code().isRetryable() || e instanceof SessionExpiredException)) {
              throw e;
            }
          }
          retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, Long.MAX_VALUE);
        }
      } finally {
        if (watched != null) {
          // a watch left that may not have fired (we were interrupted, or the queue changed): drop it without
          // waiting, so neither the client nor a reconnect keeps it
          watched.drop(client);
        }
      }
    }
  }

  /** For tests: how often a participant waiting for its turn reads the queue again ({@link Standing#TURN_RECHECK} otherwise). */
  void recheckTurnEvery(Duration period) {
    turnRecheckNanos = period.toNanos();
  }

  /** Runs takeLeadership unless the connection went meanwhile; false means "wait for the turn again". */
  private boolean lead() throws Exception {
    synchronized (this) {
      // checked under the lock the state listener takes: a SUSPENDED after this finds us LEADING and interrupts
      if (!canLead(client.state())) {
        return false;
      }
      phase = Phase.LEADING;
    }
    listener.takeLeadership(client);
    return true;
  }

  /**
   * Deletes this turn's node. While started, tries again until done or the
   * session is gone (the next turn must not queue behind it); when closing,
   * tries once if connected and otherwise leaves it to be deleted when the
   * connection comes back, so closing does not wait for the connection.
   */
  private void withdraw(Candidacy candidacy) {
    boolean wasInterrupted = Thread.interrupted();
    long retryDelayMs = 0;
    try (Signal signal = Signal.open(client)) {
      while (true) {
        long seen = signal.version();
        boolean closing = state.get() != State.STARTED;
        if (!client.state().isConnected()) {
          if (closing) {
            candidacy.withdrawWhenReconnected();
            return;
          }
          signal.awaitChange(seen, Long.MAX_VALUE); // close() interrupts this wait
          continue;
        }
        try {
          candidacy.withdraw();
          return;
        } catch (SessionExpiredException | ClientClosedException gone) {
          return; // the session's nodes are gone, or nothing more can be done
        } catch (CoordinationException e) {
          if (closing || !e.code().isRetryable()) {
            log.debug("selector {} on {}: could not delete its node now ({})", id, path, e.getMessage());
            candidacy.withdrawWhenReconnected();
            return;
          }
          retryDelayMs = signal.pause(seen, retryDelayMs, MAX_RETRY_DELAY_MS, Long.MAX_VALUE);
        }
      }
    } catch (InterruptedException e) {
      candidacy.withdrawWhenReconnected();
    } finally {
      if (wasInterrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void onStateChanged(CoordinationClient c, ConnectionState newState) {
    if (!canLead(newState)) {
      interruptLeadership();
    }
    try {
      listener.stateChanged(c, newState);
    } catch (CancelLeadershipException cancel) {
      interruptLeadership();
    } catch (RuntimeException e) {
      log.warn("selector {} on {}: stateChanged threw", id, path, e);
    }
  }

  private static boolean canLead(ConnectionState state) {
    return state.isConnected() && state != ConnectionState.READ_ONLY;
  }
}
