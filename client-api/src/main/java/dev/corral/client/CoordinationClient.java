package dev.corral.client;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A session with a Corral ensemble: blocking operations on the node tree,
 * watches, and the connection state. Every method also exists in an async form
 * on {@link #async()}.
 *
 * <p>Requests of one client are answered in the order they were made, and a
 * watch event is delivered before any answer that shows its change. Paths are
 * checked before anything is sent: an invalid or null path fails at once with
 * {@link InvalidPathException}.
 *
 * <p>Failures are {@link CoordinationException}s with a {@link Code}:
 * {@link ConnectionLossException} means the answer was lost with the
 * connection (the client retries operations that are safe to repeat, within its
 * retry policy, and protected creates); {@link SessionExpiredException} means
 * the session and its ephemerals are gone.
 *
 * <p>Thread-safe. {@link #close()} ends the session (its ephemerals go at once).
 */
public interface CoordinationClient extends AutoCloseable {

  /** The async form of every operation. */
  AsyncCoordinationClient async();

  /**
   * Creates a node; returns its actual path (with sequence suffix) and Stat.
   * {@code null} data, which ZooKeeper takes too, is no data: the node's
   * dataLength is 0 and its data reads back as an empty array.
   */
  Created create(String path, byte[] data, CreateOptions options) throws CoordinationException, InterruptedException;

  /** Creates a node with plain options for {@code mode}. */
  default Created create(String path, byte[] data, CreateMode mode) throws CoordinationException, InterruptedException {
    return create(path, data, CreateOptions.of(mode));
  }

  /** Deletes a node if its version matches ({@code -1} matches any). */
  void delete(String path, int version) throws CoordinationException, InterruptedException;

  /** Deletes a node whatever its version. */
  default void delete(String path) throws CoordinationException, InterruptedException {
    delete(path, -1);
  }

  /** The node's Stat, or empty if it does not exist. */
  Optional<Stat> exists(String path) throws CoordinationException, InterruptedException;

  /**
   * The node's Stat, or empty; leaves a one-shot watch that fires on its
   * creation (if missing) or its change or deletion (if present).
   */
  Optional<Stat> exists(String path, Watcher watcher) throws CoordinationException, InterruptedException;

  /** The node's data and Stat. */
  NodeData getData(String path) throws CoordinationException, InterruptedException;

  /** The node's data and Stat; leaves a one-shot watch for its change or deletion. */
  NodeData getData(String path, Watcher watcher) throws CoordinationException, InterruptedException;

  /**
   * Sets the node's data if its version matches ({@code -1} matches any);
   * returns the new Stat. {@code null} data is no data, as for {@link #create}.
   */
  Stat setData(String path, byte[] data, int version) throws CoordinationException, InterruptedException;

  /** Sets the node's data whatever its version. */
  default Stat setData(String path, byte[] data) throws CoordinationException, InterruptedException {
    return setData(path, data, -1);
  }

  /** The node's child names, sorted. */
  List<String> getChildren(String path) throws CoordinationException, InterruptedException;

  /** The node's child names, sorted; leaves a one-shot watch for a child change or the node's deletion. */
  List<String> getChildren(String path, Watcher watcher) throws CoordinationException, InterruptedException;

  /** The node's child names with its Stat. */
  Children getChildrenWithStat(String path) throws CoordinationException, InterruptedException;

  /** The node's child names with its Stat, leaving a one-shot child watch. */
  Children getChildrenWithStat(String path, Watcher watcher) throws CoordinationException, InterruptedException;

  /**
   * The paths of this session's ephemeral nodes whose path starts with
   * {@code prefixPath} (a string prefix, as ZooKeeper's: "/a" also matches
   * "/ab"; "/" matches all), sorted.
   */
  List<String> getEphemerals(String prefixPath) throws CoordinationException, InterruptedException;

  /** The paths of all this session's ephemeral nodes, sorted. */
  default List<String> getEphemerals() throws CoordinationException, InterruptedException {
    return getEphemerals("/");
  }

  /** How many nodes are below the node: its children, theirs, and so on (as ZooKeeper's). */
  int getAllChildrenNumber(String path) throws CoordinationException, InterruptedException;

  /**
   * Runs {@code ops} atomically at one point of the log. On failure throws the
   * failing op's exception, whose {@link CoordinationException#opResults()}
   * gives every op's result. A multi of reads only ({@link Op#getChildren},
   * {@link Op#getData}, {@link Op#exists}) is not failed by a missing node: as
   * ZooKeeper's multiRead, that read's result is an {@link OpResult.ErrorResult}.
   */
  List<OpResult> multi(List<Op> ops) throws CoordinationException, InterruptedException;

  /** Makes this client's next reads see everything committed before this call. */
  void sync(String path) throws CoordinationException, InterruptedException;

  /**
   * Adds a persistent (or persistent-recursive) watch, for which the node need
   * not exist, or a one-shot {@link AddWatchMode#FIRST} watch on an existing
   * sequential node.
   */
  void addWatch(String path, AddWatchMode mode, Watcher watcher) throws CoordinationException, InterruptedException;

  /**
   * Removes {@code watcher}'s watches of {@code type} on {@code path}, as ZooKeeper's removeWatches with
   * {@code local} false: once the server has dropped them, so with no connection this fails (connection loss)
   * and the watches stay.
   *
   * @throws NoWatcherException if {@code watcher} had no such watch
   */
  default void removeWatches(String path, Watcher watcher, WatcherType type)
      throws CoordinationException, InterruptedException {
    removeWatches(path, watcher, type, false);
  }

  /**
   * As {@link #removeWatches(String, Watcher, WatcherType)}; with {@code local}, the watches go from this client
   * at once and the call returns without waiting for the server, which is told when it can (a watch it still
   * holds fires unheard).
   *
   * @throws NoWatcherException if {@code watcher} had no such watch
   */
  void removeWatches(String path, Watcher watcher, WatcherType type, boolean local)
      throws CoordinationException, InterruptedException;

  /**
   * Removes every watcher's watches of {@code type} on {@code path}, as ZooKeeper's removeAllWatches with
   * {@code local} false; each watcher is told as by {@link #removeWatches}.
   *
   * @throws NoWatcherException if there was no such watch
   */
  default void removeAllWatches(String path, WatcherType type) throws CoordinationException, InterruptedException {
    removeAllWatches(path, type, false);
  }

  /**
   * As {@link #removeAllWatches(String, WatcherType)}, with {@code local} as for
   * {@link #removeWatches(String, Watcher, WatcherType, boolean)}.
   *
   * @throws NoWatcherException if there was no such watch
   */
  void removeAllWatches(String path, WatcherType type, boolean local)
      throws CoordinationException, InterruptedException;

  /** The current session's id (0 before the first connection). It changes after LOST. */
  long sessionId();

  /**
   * The current session's password (empty before the first connection), a copy: with {@link #sessionId()},
   * what another client needs to re-attach the session (ZooKeeper's getSessionPasswd).
   */
  byte[] sessionPassword();

  /**
   * The current session's timeout as the server negotiated it (ZooKeeper's getSessionTimeout), which may
   * differ from the one asked for; the one asked for while no session is open.
   */
  Duration sessionTimeout();

  /** The current connection state. */
  ConnectionState state();

  /** Waits until connected; false if {@code time} passed first. */
  boolean blockUntilConnected(long time, TimeUnit unit) throws InterruptedException;

  /** Adds a listener told of every state change on the client's event thread. */
  void addConnectionStateListener(ConnectionStateListener listener);

  /** Adds a listener told of every state change, in order, on {@code executor}. */
  void addConnectionStateListener(ConnectionStateListener listener, Executor executor);

  void removeConnectionStateListener(ConnectionStateListener listener);

  /** Closes the session (its ephemerals go at once) and releases everything. Closing twice is harmless. */
  @Override
  void close();
}
