package dev.corral.client.grpc;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import dev.corral.client.AddWatchMode;
import dev.corral.client.AsyncCoordinationClient;
import dev.corral.client.Children;
import dev.corral.client.ClientClosedException;
import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.NodeData;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.Stat;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import io.grpc.ClientInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The Corral client over gRPC: one session, carried by one bidirectional stream
 * to one server of the ensemble at a time.
 *
 * <pre>{@code
 * try (CorralClient client = CorralClient.builder().connectString("h1:7181,h2:7181").namespace("app").build()) {
 *   client.create("/config", data, CreateMode.PERSISTENT);
 * }
 * }</pre>
 *
 * <p><b>Connection.</b> {@link Builder#build()} returns at once and connects in the
 * background; operations made before the first connection (or while the
 * connection is down) wait for it up to the connection timeout, then fail with
 * {@code ConnectionLossException}. Until the first connection, {@link #state()} is
 * {@link ConnectionState#SUSPENDED} and {@link #sessionId()} is 0. When the stream
 * breaks the state becomes SUSPENDED and the client re-attaches the same session
 * on the next server of the shuffled list (RECONNECTED), re-registering its watches
 * so that the server fires at once every event missed meanwhile. If a server says
 * the session expired, or no server re-attached it within the session timeout
 * (counted from SUSPENDED), the state becomes LOST: waiting operations fail with
 * {@code SessionExpiredException}, and the client opens a new session by itself
 * (RECONNECTED again, with a new {@link #sessionId()}) and re-registers every
 * watch on it, one-shot ones too, with the last zxid it saw: the events missed
 * fire, as after a re-attach, and a watch whose node did not change stays
 * armed. (ZooKeeper tells each watcher Expired and forgets its watches; a
 * thread waiting on one would otherwise wait for good.) A session the client
 * gave up by its own count is then closed on the server in the background,
 * once, so that its ephemeral nodes go at once instead of after another
 * session timeout should a restarted server have restored it; it is never
 * used or reported again.
 *
 * <p><b>Order.</b> Requests are pipelined and answered in order; answers and watch
 * events are delivered one at a time, in arrival order, on the event thread (the
 * builder's executor, serialised, or a thread of the client's own): a watcher is
 * called before the answer that shows its change completes. (A blocking call's
 * answer is handed to its caller directly when the event thread has nothing
 * queued or running: nothing received before it is then left to deliver.) A watcher or
 * listener may make blocking calls; the futures of async calls it makes
 * complete on a callback thread of the client's own, where chained code may
 * block too.
 *
 * <p><b>Retries.</b> Operations that are safe to repeat are retried under the
 * {@link RetryPolicy} when their answer was lost: reads, {@code sync}, watches,
 * {@code setData} with version -1, deletes (a NoNode on such a retry counts as
 * success, since the lost attempt may have deleted the node), read-only multis, and
 * protected creates (which adopt the node of the lost attempt instead of making a
 * second one). Creates without protection, conditional {@code setData} and multis
 * with writes report the loss.
 *
 * <p>Thread-safe. {@link #close()} ends the session at once (its ephemeral nodes
 * go), fails unanswered operations with {@link ClientClosedException} and stops
 * every thread and channel of the client; closing twice is harmless.
 */
public final class CorralClient implements CoordinationClient {
  private static final AtomicInteger COUNT = new AtomicInteger();

  private enum Lifecycle { STARTED, CLOSED }

  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.STARTED);
  private final ClientConfig config;
  private final EventQueue events;
  private final StateListeners listeners;
  private final ScheduledThreadPoolExecutor scheduler;
  private final SessionManager session;
  private final Retrier retrier;
  private final AsyncOps async;
  private final AsyncCoordinationClient publicAsync;

  private CorralClient(ClientConfig config) {
    this.config = config;
    this.events = new EventQueue(config.executor());
    this.listeners = new StateListeners(events);
    this.scheduler = new ScheduledThreadPoolExecutor(1, new ThreadFactoryBuilder()
        .setNameFormat("corral-session-" + COUNT.incrementAndGet()).setDaemon(true).build());
    scheduler.setRemoveOnCancelPolicy(true);
    WatchRegistry watches = new WatchRegistry();
    this.session = new SessionManager(config, watches, events, listeners, scheduler, System::nanoTime);
    this.retrier = new Retrier(config.retryPolicy(), scheduler);
    this.async = new AsyncOps(session, config.namespace(), retrier, watches, events);
    this.publicAsync = new CallbackSafeAsync(async, events);
    listeners.client(this);
    session.start();
  }

  /** A builder; only {@link Builder#connectString} is required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public AsyncCoordinationClient async() {
    return publicAsync;
  }

  @Override
  public Created create(String path, byte[] data, CreateOptions options)
      throws CoordinationException, InterruptedException {
    return await(() -> async.create(path, data, options));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Retried after a lost answer; a NoNode on such a retry counts as success (the
   * lost attempt may have deleted the node).
   */
  @Override
  public void delete(String path, int version) throws CoordinationException, InterruptedException {
    await(() -> async.delete(path, version));
  }

  @Override
  public Optional<Stat> exists(String path) throws CoordinationException, InterruptedException {
    return await(() -> async.exists(path));
  }

  @Override
  public Optional<Stat> exists(String path, Watcher watcher) throws CoordinationException, InterruptedException {
    return await(() -> async.exists(path, watcher));
  }

  @Override
  public NodeData getData(String path) throws CoordinationException, InterruptedException {
    return await(() -> async.getData(path));
  }

  @Override
  public NodeData getData(String path, Watcher watcher) throws CoordinationException, InterruptedException {
    return await(() -> async.getData(path, watcher));
  }

  @Override
  public Stat setData(String path, byte[] data, int version) throws CoordinationException, InterruptedException {
    return await(() -> async.setData(path, data, version));
  }

  @Override
  public List<String> getChildren(String path) throws CoordinationException, InterruptedException {
    return await(() -> async.getChildren(path)).names();
  }

  @Override
  public List<String> getChildren(String path, Watcher watcher) throws CoordinationException, InterruptedException {
    return await(() -> async.getChildren(path, watcher)).names();
  }

  @Override
  public Children getChildrenWithStat(String path) throws CoordinationException, InterruptedException {
    return await(() -> async.getChildren(path));
  }

  @Override
  public Children getChildrenWithStat(String path, Watcher watcher) throws CoordinationException, InterruptedException {
    return await(() -> async.getChildren(path, watcher));
  }

  @Override
  public List<String> getEphemerals(String prefixPath) throws CoordinationException, InterruptedException {
    return await(() -> async.getEphemerals(prefixPath));
  }

  @Override
  public int getAllChildrenNumber(String path) throws CoordinationException, InterruptedException {
    return await(() -> async.getAllChildrenNumber(path));
  }

  @Override
  public List<OpResult> multi(List<Op> ops) throws CoordinationException, InterruptedException {
    return await(() -> async.multi(ops));
  }

  @Override
  public void sync(String path) throws CoordinationException, InterruptedException {
    await(() -> async.sync(path));
  }

  @Override
  public void addWatch(String path, AddWatchMode mode, Watcher watcher)
      throws CoordinationException, InterruptedException {
    await(() -> async.addWatch(path, mode, watcher));
  }

  @Override
  public void removeWatches(String path, Watcher watcher, WatcherType type, boolean local)
      throws CoordinationException, InterruptedException {
    await(() -> async.removeWatches(path, watcher, type, local));
  }

  @Override
  public void removeAllWatches(String path, WatcherType type, boolean local)
      throws CoordinationException, InterruptedException {
    await(() -> async.removeAllWatches(path, type, local));
  }

  @Override
  public long sessionId() {
    return session.sessionId();
  }

  @Override
  public byte[] sessionPassword() {
    return session.sessionPassword();
  }

  @Override
  public Duration sessionTimeout() {
    return session.sessionTimeout();
  }

  /** The connection state; SUSPENDED until the first connection. */
  @Override
  public ConnectionState state() {
    ConnectionState state = session.state();
    return state == null ? ConnectionState.SUSPENDED : state;
  }

  @Override
  public boolean blockUntilConnected(long time, TimeUnit unit) throws InterruptedException {
    return session.awaitConnected(time, unit);
  }

  @Override
  public void addConnectionStateListener(ConnectionStateListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"), null);
  }

  @Override
  public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {
    listeners.add(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor, "executor"));
  }

  @Override
  public void removeConnectionStateListener(ConnectionStateListener listener) {
    listeners.remove(listener);
  }

  @Override
  public void close() {
    if (!lifecycle.compareAndSet(Lifecycle.STARTED, Lifecycle.CLOSED)) {
      return;
    }
    boolean interrupted = false;
    try {
      Duration wait = config.connectionTimeout().compareTo(Duration.ofSeconds(3)) < 0
          ? config.connectionTimeout() : Duration.ofSeconds(3);
      session.close(wait);
    } catch (InterruptedException e) {
      interrupted = true;
    }
    retrier.abandonAll(new ClientClosedException("the client is closed"));
    scheduler.shutdownNow();
    try {
      events.shutdown();
      if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
        org.slf4j.LoggerFactory.getLogger(CorralClient.class).warn("The session thread did not stop within 5 s");
      }
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "CorralClient[session 0x" + Long.toHexString(sessionId()) + ", " + state() + "]";
  }

  /** Makes {@code call} and blocks until it is answered. */
  private <T> T await(Supplier<CompletableFuture<T>> call) throws CoordinationException, InterruptedException {
    CompletableFuture<T> future = events.awaiting(call);
    try {
      return future.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CoordinationException failure) {
        throw failure;
      }
      if (cause instanceof RuntimeException failure) {
        throw failure;
      }
      if (cause instanceof Error failure) {
        throw failure;
      }
      throw new IllegalStateException("unexpected failure", cause);
    }
  }

  /**
   * Builds a {@link CorralClient}. Each setting may be given once: a repeated
   * setting fails at once with {@link IllegalStateException}, an invalid value with
   * {@link IllegalArgumentException}. Defaults: session timeout 30 s (the server
   * negotiates it into its bounds), connection timeout 15 s,
   * {@link RetryPolicy#defaultPolicy()}, no namespace, a thread of the client's own
   * for watchers and listeners.
   */
  public static final class Builder {
    private ConnectString connectString;
    private Duration sessionTimeout;
    private Duration connectionTimeout;
    private RetryPolicy retryPolicy;
    private String namespace;
    private Executor executor;
    private ClientInterceptor interceptor;
    private ClientConfig.SessionToJoin session;

    private Builder() {}

    /**
     * The servers, as {@code "host:port,host:port"}, optionally followed by a
     * chroot as in ZooKeeper ({@code "host:port,host:port/app"}): every path is
     * then taken relative to {@code /app}, as with {@link #namespace}, and a
     * namespace given too lies inside it. Required.
     */
    public Builder connectString(String connectString) {
      once(this.connectString, "connectString");
      this.connectString = ConnectString.parse(Objects.requireNonNull(connectString, "connectString"));
      return this;
    }

    /** The session timeout to ask for; the server negotiates it into its bounds. */
    public Builder sessionTimeout(Duration sessionTimeout) {
      once(this.sessionTimeout, "sessionTimeout");
      this.sessionTimeout = positive(sessionTimeout, "sessionTimeout");
      return this;
    }

    /** How long an operation waits for a connection before failing with ConnectionLoss. */
    public Builder connectionTimeout(Duration connectionTimeout) {
      once(this.connectionTimeout, "connectionTimeout");
      this.connectionTimeout = positive(connectionTimeout, "connectionTimeout");
      return this;
    }

    /** How operations safe to repeat are retried after a retryable failure. */
    public Builder retryPolicy(RetryPolicy retryPolicy) {
      once(this.retryPolicy, "retryPolicy");
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /**
     * A namespace ("app", or "app/sub"): every path is taken relative to
     * {@code /app}, whose node is created before the first operation if missing.
     */
    public Builder namespace(String namespace) {
      once(this.namespace, "namespace");
      Objects.requireNonNull(namespace, "namespace");
      if (namespace.isEmpty() || namespace.startsWith("/")) {
        throw new IllegalArgumentException("the namespace must be non-empty and relative (\"app\", not \"/app\")");
      }
      Namespace.of(namespace);
      this.namespace = namespace;
      return this;
    }

    /** Where watchers and connection state listeners run (one at a time, in order). */
    public Builder executor(Executor executor) {
      once(this.executor, "executor");
      this.executor = Objects.requireNonNull(executor, "executor");
      return this;
    }

    /** A gRPC interceptor on every channel of the client (for tests and instrumentation). */
    public Builder interceptor(ClientInterceptor interceptor) {
      once(this.interceptor, "interceptor");
      this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
      return this;
    }

    /**
     * Re-attaches a session another client opened (ZooKeeper's constructor
     * with a session id and password) instead of opening a new one, e.g. to
     * resume the session of a process that died, within its timeout: the
     * client then owns the session and its ephemeral nodes. A client that
     * still has the session is told its stream ended and re-attaches, taking
     * the session back, as a ZooKeeper client reconnecting does. Where the
     * session has expired or the password is wrong, the client goes LOST and
     * opens a new session, as after any expiry.
     *
     * @param sessionId the session's id ({@link CoordinationClient#sessionId()} of its client); not 0
     * @param password its password ({@link CoordinationClient#sessionPassword()} of its client)
     */
    public Builder session(long sessionId, byte[] password) {
      once(this.session, "session");
      Objects.requireNonNull(password, "password");
      if (sessionId == 0) {
        throw new IllegalArgumentException("sessionId 0 is no session: leave session() out to open a new one");
      }
      this.session = new ClientConfig.SessionToJoin(sessionId, password.clone());
      return this;
    }

    /**
     * A started client, connecting in the background.
     *
     * @throws IllegalStateException if no connect string was given
     */
    public CorralClient build() {
      if (connectString == null) {
        throw new IllegalStateException("a connectString is required");
      }
      return new CorralClient(new ClientConfig(
          connectString.servers(),
          sessionTimeout == null ? Duration.ofSeconds(30) : sessionTimeout,
          connectionTimeout == null ? Duration.ofSeconds(15) : connectionTimeout,
          retryPolicy == null ? RetryPolicy.defaultPolicy() : retryPolicy,
          connectString.namespace(namespace),
          executor,
          interceptor,
          session));
    }

    private static void once(Object current, String setting) {
      if (current != null) {
        throw new IllegalStateException(setting + " was already set to " + current);
      }
    }

    private static Duration positive(Duration value, String setting) {
      Objects.requireNonNull(value, setting);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(setting + " must be positive, not " + value);
      }
      if (value.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(setting + " is too long: " + value);
      }
      return value;
    }
  }
}
