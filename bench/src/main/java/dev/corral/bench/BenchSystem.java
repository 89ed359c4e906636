package dev.corral.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** One system under test: how to start its server as a process and how to be its client. */
public interface BenchSystem {
  /** "corral", "zookeeper" or "etcd". */
  String name();

  /** How the server is started (for the report). */
  String describe();

  /** Starts a fresh server process with its data under {@code dir}; returns once it serves. */
  ServerHandle start(Path dir) throws Exception;

  /** A new session (client) with the server(s) of {@code connectString} (a server's, or an ensemble's). */
  Client connect(String connectString, Duration sessionTimeout) throws Exception;

  /**
   * Starts a fresh 3-server ensemble (W6), each member its own process with its
   * data under {@code dir}; returns once the members agree on a leader.
   */
  Ensemble startEnsemble(Path dir) throws Exception;

  /** How the ensemble's members are started (for the report). */
  String describeEnsemble();

  /** Whether the server is a JVM (so that {@code jcmd PID GC.run} settles its heap before an RSS reading). */
  boolean jvm();

  /** The arguments after the main class for a {@link Contender} JVM of this system. */
  default String[] contenderArgs(ServerHandle server, String path, String id, int sessionTimeoutMs) {
    return new String[] {name(), server.connectString(), path, id, Integer.toString(sessionTimeoutMs)};
  }

  /** A running server process. */
  interface ServerHandle extends AutoCloseable {
    long pid();

    String connectString();

    Path log();

    /** Stops the process (SIGTERM, then SIGKILL); harmless twice. */
    @Override
    void close();
  }

  /** One session. Paths are ZooKeeper-style; etcd uses them as keys. */
  interface Client extends AutoCloseable {
    /** Creates {@code path} and its missing parents, empty (no failure if it exists). */
    void ensurePath(String path) throws Exception;

    /** Creates a persistent node; fails if it exists. */
    void create(String path, byte[] data) throws Exception;

    byte[] get(String path) throws Exception;

    void set(String path, byte[] data) throws Exception;

    void delete(String path) throws Exception;

    /** A pipelined create (for loading many nodes quickly). */
    CompletableFuture<?> createAsync(String path, byte[] data);

    /** The system's mutex recipe on {@code path}, held by this session. */
    Mutex mutex(String path) throws Exception;

    /** A data watch on {@code path} calling {@code onChange} with System.nanoTime() of the callback. */
    DataWatch watchData(String path, java.util.function.LongConsumer onChange) throws Exception;

    @Override
    void close();
  }

  /** A lock. */
  interface Mutex {
    void acquire() throws Exception;

    void release() throws Exception;
  }

  /** A watch that is (re)armed before each change it should report. */
  interface DataWatch {
    /** Makes sure the next change of the node is reported (one-shot watches are set again). */
    void arm() throws Exception;

    void close();
  }
}
