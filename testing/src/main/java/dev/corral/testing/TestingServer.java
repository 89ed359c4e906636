package dev.corral.testing;

import dev.corral.server.CorralServer;
import dev.corral.server.LoopbackPorts;
import dev.corral.server.ServerConfig;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real Corral server for tests, as Curator's TestingServer: on a free
 * loopback port, with a temporary data directory deleted on {@link #close()}.
 *
 * <pre>{@code
 * try (TestingServer server = new TestingServer()) {
 *   CoordinationClient client = CorralClient.builder().connectString(server.getConnectString()).build();
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #stop()} and {@link #restart()} keep the port and the data, so
 * clients can reconnect to the same sessions; {@link #expireSession(long)}
 * expires a session at once. The session tick is 1 s by default (session
 * timeouts negotiated into [2 s, 20 s]). Its log is written in segments of
 * {@value #LOG_SEGMENT_BYTES} bytes instead of a server's 64 MiB, so that a
 * test suite starting many servers does not write 128 MiB of preallocated log
 * for each.
 */
public final class TestingServer implements AutoCloseable {
  /** The default session tick of a testing server. */
  public static final Duration DEFAULT_TICK = Duration.ofSeconds(1);
  private static final int FREE_PORT_ATTEMPTS = 5;
  /** Log segment size: a short-lived server gains nothing from rolling its log rarely. */
  static final long LOG_SEGMENT_BYTES = 1L << 20;

  /** 0 until a start with no port asked for found a free one; kept for restarts. */
  private volatile int port;
  private final Path dataDir;
  private final Duration tick;
  private CorralServer server;
  private boolean closed;

  /** Starts a server on a free port with a fresh temporary data directory. */
  public TestingServer() {
    this(0, DEFAULT_TICK);
  }

  /** Starts a server on {@code port} (0 for a free one) with a fresh temporary data directory. */
  public TestingServer(int port) {
    this(port, DEFAULT_TICK);
  }

  /**
   * A server on a free port with a fresh temporary data directory, started
   * now if {@code start}, else by {@link #start()}. Its port is chosen at
   * once either way, so a client can be given {@link #getConnectString()}
   * before the server runs.
   */
  public TestingServer(boolean start) {
    this(0, start);
  }

  /**
   * A server on {@code port} (0 for a free one, chosen at once) with a fresh
   * temporary data directory, started now if {@code start}, else by
   * {@link #start()}.
   */
  public TestingServer(int port, boolean start) {
    this(port, DEFAULT_TICK, start);
  }

  /**
   * Starts a server on {@code port} (0 for a free one) with a fresh temporary
   * data directory and the given session tick.
   */
  public TestingServer(int port, Duration tick) {
    this(port, tick, true);
  }

  private TestingServer(int port, Duration tick, boolean start) {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be 0 (a free one) or in [1, 65535], was " + port);
    }
    this.port = port == 0 && !start ? LoopbackPorts.free() : port;
    this.tick = tick;
    this.dataDir = TestingResources.newTempDir();
    if (!start) {
      return;
    }
    try {
      start();
    } catch (RuntimeException e) {
      TestingResources.deleteRecursively(dataDir); // no one can close a server that did not start
      throw e;
    }
  }

  /** {@code 127.0.0.1:port}, for a client's connect string. */
  public String getConnectString() {
    return "127.0.0.1:" + port;
  }

  public int getPort() {
    return port;
  }

  /** The server's data directory (deleted on close). */
  public Path getTempDirectory() {
    return dataDir;
  }

  /** The session tick; timeouts are negotiated into [2 x tick, 20 x tick]. */
  public Duration getTick() {
    return tick;
  }

  /** True while the server runs. */
  public synchronized boolean isRunning() {
    return server != null;
  }

  /** Starts the server again after {@link #stop()}, on the same port with the same data. */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("the testing server was closed");
    }
    if (server != null) {
      throw new IllegalStateException("the testing server is already running");
    }
    server = port != 0 ? startOn(port) : startOnAFreePort();
    port = server.port();
  }

  private CorralServer startOn(int chosen) {
    return CorralServer.start(ServerConfig.builder()
        .port(chosen)
        .dataDir(dataDir)
        .tick(tick)
        .logSegmentBytes(LOG_SEGMENT_BYTES)
        .build());
  }

  /**
   * On a port of {@link LoopbackPorts}, not one the kernel picks for port 0:
   * those come from the range of outgoing connections' ports, where, while the
   * server is stopped for a restart, a reconnecting client's socket may be
   * given the very port it dials and connect to itself, and the restart then
   * finds the port taken. A port taken between its probe and the bind is
   * replaced by another; any other failure is thrown at once.
   */
  private CorralServer startOnAFreePort() {
    UncheckedIOException taken = null;
    for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
      try {
        return startOn(LoopbackPorts.free());
      } catch (UncheckedIOException e) {
        if (!(e.getCause() instanceof BindException)) {
          throw e;
        }
        taken = e;
      }
    }
    throw taken;
  }

  /** Stops the server cleanly; its data and port are kept for {@link #restart()}. */
  public synchronized void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** Stops (if running) and starts the server on the same port with the same data. */
  public synchronized void restart() {
    stop();
    start();
  }

  /**
   * Expires a session at once, as if its timeout had passed: its ephemeral
   * nodes are deleted and its client is told the session expired.
   */
  public synchronized void expireSession(long sessionId) {
    if (server == null) {
      throw new IllegalStateException("the testing server is stopped");
    }
    server.expireSession(sessionId);
  }

  /** Stops the server and deletes its data. Closing twice is harmless. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    stop();
    closed = true;
    TestingResources.deleteRecursively(dataDir);
  }
}
