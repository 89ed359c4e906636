package dev.corral.client.grpc;

import com.google.protobuf.ByteString;
import dev.corral.client.ClientClosedException;
import dev.corral.client.Code;
import dev.corral.client.ConnectionLossException;
import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationException;
import dev.corral.client.SessionExpiredException;
import dev.corral.proto.v1.CloseSessionRequest;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.PingRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session: opens and re-attaches it over one {@link SessionStream} at a time,
 * moving through the shuffled servers with backoff; keeps it alive with pings;
 * decides SUSPENDED, RECONNECTED and LOST once, for everyone; queues
 * requests made while no stream is attached; and, once connected again, closes a
 * session it gave up by its own clock ({@link AbandonedSession}).
 */
final class SessionManager implements SessionStream.Listener {
  private static final long MAX_RECONNECT_DELAY_MS = 500;
  private static final Logger log = LoggerFactory.getLogger(SessionManager.class);
  private static final int MAX_INBOUND_BYTES = 64 << 20;

  private final ClientConfig config;
  private final ServerList servers;
  private final WatchRegistry watches;
  private final EventQueue events;
  private final StateListeners listeners;
  private final ScheduledExecutorService scheduler;
  private final LongSupplier nanoClock;
  private final AtomicLong lastZxidSeen = new AtomicLong();
  private final Object lock = new Object();

  // guarded by lock
  private boolean closed;
  private ConnectionState state;
  private long sessionId;
  private ByteString password = ByteString.EMPTY;
  private int timeoutMs;
  private volatile ServerLimits limits = ServerLimits.UNKNOWN; // as the last server attached to said
  private SessionStream attempt;
  private SessionStream current;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private int failures;
  private int newSessionsRefusedAsBehind; // in a row, since the last connection
  private long suspensions;
  private AbandonedSession abandoned; // given up by our clock, to close once connected again
  private AbandonedSession closing; // being closed

  SessionManager(ClientConfig config, WatchRegistry watches, EventQueue events, StateListeners listeners,
      ScheduledExecutorService scheduler, LongSupplier nanoClock) {
    this.config = config;
    this.servers = new ServerList(config.servers());
    this.watches = watches;
    this.events = events;
    this.listeners = listeners;
    this.scheduler = scheduler;
    this.nanoClock = nanoClock;
    this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
    if (config.session() != null) {
      this.sessionId = config.session().id();
      this.password = ByteString.copyFrom(config.session().password());
    }
  }

  void start() {
    scheduler.execute(this::connectNext);
  }

  // ------------------------------------------------------------- requests

  /**
   * Sends {@code request} on the attached stream, or queues it until one is
   * attached (for at most the connection timeout, then it fails with connection loss).
   * One over the limits the server told fails at once, unsent ({@link ServerLimits}).
   */
  java.util.concurrent.CompletableFuture<Response> submit(Request request, Consumer<Response> onAnswer,
      Delivery delivery) {
    Pending pending = new Pending(request, onAnswer, delivery);
    Optional<CoordinationException> refusal = limits.refusal(request);
    synchronized (lock) {
      if (closed) {
        pending.fail(new ClientClosedException("the client is closed"), events);
      } else if (refusal.isPresent()) {
        pending.fail(refusal.get(), events);
      } else if (current == null || !current.send(pending)) {
        waiting.add(pending);
        pending.timeout(scheduler.schedule(() -> connectionTimedOut(pending),
            config.connectionTimeout().toMillis(), TimeUnit.MILLISECONDS));
      }
    }
    return pending.future();
  }

  private void connectionTimedOut(Pending pending) {
    synchronized (lock) {
      if (!waiting.remove(pending)) {
        return;
      }
    }
    pending.fail(new ConnectionLossException("no connection to a server within the connection timeout of "
        + config.connectionTimeout().toMillis() + " ms", null), events);
  }

  long sessionId() {
    synchronized (lock) {
      return sessionId;
    }
  }

  /** A copy of the session's password (empty while no session is open). */
  byte[] sessionPassword() {
    synchronized (lock) {
      return password.toByteArray();
    }
  }

  /** The session timeout the server negotiated; the one asked for while no session is open. */
  Duration sessionTimeout() {
    synchronized (lock) {
      return Duration.ofMillis(timeoutMs);
    }
  }

  ConnectionState state() {
    synchronized (lock) {
      return state;
    }
  }

  long lastZxidSeen() {
    return lastZxidSeen.get();
  }

  /** Waits until connected; false if the time passed (or the client closed) first. */
  boolean awaitConnected(long time, TimeUnit unit) throws InterruptedException {
    long deadline = nanoClock.getAsLong() + unit.toNanos(time);
    synchronized (lock) {
      while (!closed && (state == null || !state.isConnected())) {
        long left = deadline - nanoClock.getAsLong();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return !closed;
    }
  }

  // ------------------------------------------------------------ connecting

  private void connectNext() {
    synchronized (lock) {
      if (closed || attempt != null || current != null) {
        return;
      }
      ServerList.Address server = servers.next();
      Connect connect = Connect.newBuilder()
          .setSessionId(sessionId)
          .setPassword(password)
          .setTimeoutMs(timeoutMs)
          .setLastZxidSeen(sessionId == 0 && historyDoubted() ? 0 : lastZxidSeen.get())
          .setMaxMessageBytes(MAX_INBOUND_BYTES)
          .build();
      log.debug("Connecting to {} (session 0x{})", server, Long.toHexString(sessionId));
      SessionStream stream = new SessionStream(server, channel(server), this, nanoClock);
      attempt = stream;
      stream.start(connect);
      long attemptMillis = Math.max(500, timeoutMs / servers.size());
      scheduler.schedule(() -> attemptTimedOut(stream), attemptMillis, TimeUnit.MILLISECONDS);
    }
  }

  private ManagedChannel channel(ServerList.Address server) {
    ManagedChannelBuilder<?> builder =
        Grpc.newChannelBuilderForAddress(server.host(), server.port(), InsecureChannelCredentials.create())
            .maxInboundMessageSize(MAX_INBOUND_BYTES)
            // answers are handled on the transport's thread, one thread switch fewer per call: nothing on
            // the receiving path blocks, and user code runs on the event or callback thread (EventQueue)
            .directExecutor();
    if (config.interceptor() != null) {
      builder.intercept(config.interceptor());
    }
    return builder.build();
  }

  private void attemptTimedOut(SessionStream stream) {
    synchronized (lock) {
      if (stream != attempt) {
        return;
      }
    }
    stream.cancel("no answer to the handshake in time");
  }

  @Override
  public void connected(SessionStream stream, Connected connected) {
    synchronized (lock) {
      if (stream != attempt || closed) {
        stream.cancel("a stale connection attempt");
        return;
      }
      attempt = null;
      current = stream;
      failures = 0;
      newSessionsRefusedAsBehind = 0;
      boolean newSession = !connected.getReattached();
      if (newSession && connected.getZxid() < lastZxidSeen.get()) {
        log.warn("The ensemble's data is older than what this client saw (zxid 0x{} against 0x{}): wiped, or"
            + " restored from a backup? Going on from its zxid", Long.toHexString(connected.getZxid()),
            Long.toHexString(lastZxidSeen.get()));
        lastZxidSeen.set(connected.getZxid());
      }
      sessionId = connected.getSessionId();
      password = connected.getPassword();
      timeoutMs = connected.getTimeoutMs();
      limits = ServerLimits.of(connected);
      for (SetWatchesRequest part : watches.reRegistration(lastZxidSeen.get())) {
        submitInternal(stream, Request.newBuilder().setSetWatches(part).build(), "SetWatches");
      }
      // a request keeps its connection timeout until it is sent: this stream may already be dead
      Pending pending;
      while ((pending = waiting.peek()) != null && stream.send(pending)) {
        waiting.poll();
        pending.cancelTimeout();
      }
      long period = Math.max(1, timeoutMs / 3);
      stream.heartbeat(scheduler.scheduleAtFixedRate(() -> heartbeat(stream), period, period, TimeUnit.MILLISECONDS));
      log.info("Session 0x{} {} on {} (timeout {} ms)", Long.toHexString(sessionId),
          newSession ? "opened" : "re-attached", stream.server(), timeoutMs);
      transition(state == null ? ConnectionState.CONNECTED : ConnectionState.RECONNECTED);
      AbandonedSession old = abandoned;
      abandoned = null;
      if (old != null) {
        scheduler.execute(() -> closeAbandoned(old, stream.server()));
      }
    }
  }

  /** Closes a session given up by our clock, on the server just reached, over a stream of its own. */
  private void closeAbandoned(AbandonedSession old, ServerList.Address server) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closing = old;
      old.close(server, channel(server), nanoClock, scheduler, config.connectionTimeout());
    }
  }

  private void submitInternal(SessionStream stream, Request request, String what) {
    Pending pending = new Pending(request, response -> {
      if (response.hasError()) {
        log.warn("{} failed: {} {}", what, response.getError().getCode(), response.getError().getMessage());
      }
    }, Delivery.DIRECT);
    stream.send(pending);
  }

  private void heartbeat(SessionStream stream) {
    synchronized (lock) {
      if (closed || stream != current) {
        return;
      }
    }
    long silentMillis = TimeUnit.NANOSECONDS.toMillis(nanoClock.getAsLong() - stream.lastHeardNanos());
    if (silentMillis > timeoutMs * 2L / 3) {
      log.info("Nothing heard from {} for {} ms; breaking the stream", stream.server(), silentMillis);
      stream.cancel("no answer from the server for " + silentMillis + " ms");
    } else {
      submitInternal(stream, Request.newBuilder().setPing(PingRequest.getDefaultInstance()).build(), "Ping");
    }
  }

  @Override
  public void answered(SessionStream stream, Pending pending, Response response) {
    // the events a SetWatches replays come with its last part: were the stream to break before it, the parts
    // must be sent again from the zxid seen before them
    if (!pending.request().getSetWatches().getMore()) {
      lastZxidSeen.accumulateAndGet(response.getZxid(), Math::max);
    }
    pending.answer(response, events);
  }

  @Override
  public void event(SessionStream stream, WatchEvent event) {
    synchronized (lock) {
      if (stream != current) {
        return;
      }
    }
    lastZxidSeen.accumulateAndGet(event.getZxid(), Math::max);
    var delivered = Protos.event(event, config.namespace());
    watches.fire(event, watcher -> events.execute(() -> watcher.process(delivered)));
  }

  @Override
  public void ended(SessionStream stream, Error fatal, Throwable cause, List<Pending> unanswered) {
    stream.shutdown();
    ErrorCode code = fatal == null ? null : fatal.getCode();
    String why = fatal != null ? fatal.getCode() + " " + fatal.getMessage() : String.valueOf(cause);
    synchronized (lock) {
      boolean wasCurrent = stream == current;
      if (closed || (!wasCurrent && stream != attempt)) {
        failAll(unanswered, closed ? new ClientClosedException("the client is closed")
            : new ConnectionLossException("the connection to " + stream.server() + " ended: " + why, cause));
        return;
      }
      current = wasCurrent ? null : current;
      attempt = wasCurrent ? attempt : null;
      if (code == ErrorCode.SESSION_EXPIRED) {
        failAll(unanswered, new SessionExpiredException(why, cause));
        lose("the server says: " + why);
      } else {
        List<Pending> lost = unanswered;
        if (code == ErrorCode.REQUEST_TOO_LARGE && !unanswered.isEmpty()) {
          // a client bug, not the network's: the request the server refused fails for good (not retried, which
          // would only end the stream again); the others were cut off with it
          Pending refused = Collections.max(unanswered, Comparator.comparingInt(p -> p.request().getSerializedSize()));
          refused.fail(CoordinationException.of(Code.REQUEST_TOO_LARGE, why + " (the request of "
              + refused.request().getSerializedSize() + " bytes, not sent again)", null, List.of(), null), events);
          lost = unanswered.stream().filter(p -> p != refused).toList();
        }
        failAll(lost, new ConnectionLossException("the connection to " + stream.server() + " ended: " + why, cause));
        if (wasCurrent) {
          log.warn("Lost the connection to {} (session 0x{}): {}", stream.server(), Long.toHexString(sessionId), why);
          suspend();
        } else {
          log.debug("Could not attach to {}: {}", stream.server(), why);
        }
        if (code == ErrorCode.SERVER_BEHIND && sessionId == 0 && ++newSessionsRefusedAsBehind == doubtAfter()) {
          log.info("Every server refused a new session as behind what this client saw ({}); asking for none", why);
        }
      }
      failures++;
      long delay = wasCurrent && code == ErrorCode.SESSION_MOVED ? movedAwayDelayMillis() : reconnectDelayMillis();
      scheduler.schedule(this::connectNext, delay, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Before taking back a session that another client re-attached (its id and
   * password given to a second client object): a heartbeat period, as long
   * as a ZooKeeper client takes to notice the move. Re-attaching at once, two
   * clients sharing a session took it from each other every few milliseconds,
   * each time a write to the log.
   */
  private long movedAwayDelayMillis() {
    return Math.max(reconnectDelayMillis(), timeoutMs / 3);
  }

  /**
   * Between attempts: the retry policy's backoff, at most a quarter of the
   * session timeout and at most {@link #MAX_RECONNECT_DELAY_MS} (members that
   * refuse with SERVER_BEHIND during a failover catch up within about an
   * election; a longer wait only delays the session's return).
   */
  private long reconnectDelayMillis() {
    if (failures <= 1) {
      return 0;
    }
    long backoff = config.retryPolicy().backoff(failures - 1).toMillis();
    long capped = Math.max(1, Math.min(Math.min(backoff, timeoutMs / 4), MAX_RECONNECT_DELAY_MS));
    return capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
  }

  private void suspend() {
    long suspension = ++suspensions;
    transition(ConnectionState.SUSPENDED);
    scheduler.schedule(() -> expireLocally(suspension), timeoutMs, TimeUnit.MILLISECONDS);
  }

  private void expireLocally(long suspension) {
    synchronized (lock) {
      if (closed || suspension != suspensions || state != ConnectionState.SUSPENDED) {
        return;
      }
      SessionStream stale = attempt;
      attempt = null;
      if (sessionId != 0) {
        abandoned = new AbandonedSession(sessionId, password);
      }
      lose("no server re-attached it within the session timeout of " + timeoutMs + " ms");
      if (stale != null) {
        stale.cancel("the session was given up");
      }
      scheduler.execute(this::connectNext);
    }
  }

  /**
   * Whether every server refused a new session twice as behind the zxid this
   * client saw: then the next attempt asks for none. Either a server is
   * catching up, or the ensemble's data is older than what the client saw
   * (wiped, or restored from a backup), where waiting cannot help. Either way
   * the new session is safe to take: it is opened through the log, so its
   * server answers only once it applied every change committed before it. If
   * the answer's zxid is below the client's, the data is older and the client
   * goes on from there, as a new ZooKeeper handle, which has seen nothing,
   * would ({@link #connected}). A re-attach keeps asking. The caller holds the lock.
   */
  private boolean historyDoubted() {
    return newSessionsRefusedAsBehind >= doubtAfter();
  }

  private int doubtAfter() {
    return 2 * servers.size();
  }

  /** The session is gone: LOST, then a new session is opened (reported as RECONNECTED). */
  private void lose(String why) {
    log.warn("Session 0x{} lost: {}", Long.toHexString(sessionId), why);
    sessionId = 0;
    password = ByteString.EMPTY;
    timeoutMs = (int) Math.min(Integer.MAX_VALUE, config.sessionTimeout().toMillis());
    List<Pending> queued = List.copyOf(waiting);
    waiting.clear();
    failAll(queued, new SessionExpiredException("the session expired: " + why, null));
    transition(ConnectionState.LOST);
  }

  private void transition(ConnectionState next) {
    state = next;
    lock.notifyAll();
    log.info("Connection state {}", next);
    listeners.publish(next);
  }

  private void failAll(List<Pending> pendings, CoordinationException failure) {
    for (Pending pending : pendings) {
      pending.fail(failure, events);
    }
  }

  // ---------------------------------------------------------------- close

  /**
   * Closes the session: asks the server to close it (waiting at most {@code wait}
   * for the answer), then ends the stream; every unanswered request fails with
   * {@link ClientClosedException}.
   */
  void close(Duration wait) throws InterruptedException {
    SessionStream stream;
    List<Pending> left;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      stream = current;
      left = new java.util.ArrayList<>(waiting);
      waiting.clear();
      lock.notifyAll();
    }
    ClientClosedException failure = new ClientClosedException("the client is closed");
    failAll(left, failure);
    if (stream != null) {
      Pending close = new Pending(Request.newBuilder().setCloseSession(CloseSessionRequest.getDefaultInstance())
          .build(), response -> { }, Delivery.DIRECT);
      if (stream.send(close)) {
        try {
          Response answer = close.future().get(wait.toMillis(), TimeUnit.MILLISECONDS);
          if (answer.hasError()) {
            log.warn("Closing session 0x{} failed: {}", Long.toHexString(sessionId()), answer.getError());
          }
        } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
          log.warn("No answer to closing session 0x{}: {}", Long.toHexString(sessionId()), e.toString());
        }
      }
    }
    SessionStream connecting;
    AbandonedSession closingOld;
    synchronized (lock) {
      stream = current;
      connecting = attempt;
      closingOld = closing;
      current = null;
      attempt = null;
      closing = null;
    }
    if (closingOld != null) {
      closingOld.abort();
    }
    for (SessionStream s : new SessionStream[] {stream, connecting}) {
      if (s != null) {
        failAll(s.abort(), failure);
      }
    }
    log.info("Session 0x{} closed", Long.toHexString(sessionId()));
  }
}
