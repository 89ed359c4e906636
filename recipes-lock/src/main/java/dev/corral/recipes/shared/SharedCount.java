package dev.corral.recipes.shared;

import dev.corral.client.BadVersionException;
import dev.corral.client.ConnectionState;
import dev.corral.client.ConnectionStateListener;
import dev.corral.client.CoordinationClient;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.EventType;
import dev.corral.client.NodeData;
import dev.corral.client.NodeExistsException;
import dev.corral.client.PathRules;
import dev.corral.client.Stat;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An integer shared through one node, as Curator's {@code SharedCount}: every
 * process reads it, is told when it changes, and sets it, outright or only if
 * nobody set it since it was read ({@link #trySetCount}, by the node's
 * version). The node holds the count as 4 bytes, high byte first, as
 * Curator's does; {@link #start()} creates it (and its parents) with the seed
 * value if it does not exist.
 *
 * <p>The count is read at start and again after each change the node's data
 * watch tells of, and after the connection comes back (RECONNECTED: a change
 * made while it was down is heard then). Listeners are told of each change
 * those reads find (this process's own too, as in Curator), and of the
 * client's connection state changes.
 */
public final class SharedCount implements SharedCountReader, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SharedCount.class);

  private enum Lifecycle { LATENT, STARTED, CLOSED }

  /** The count as seen, and the zxid of the change that wrote it (newer changes win, whatever order reads end in). */
  private record Seen(VersionedValue<Integer> value, long mzxid) {}

  private record Registered(SharedCountListener listener, Executor executor) {}

  private final CoordinationClient client;
  private final String path;
  private final int seedValue;
  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.LATENT);
  private final AtomicReference<Seen> seen;
  /** The zxid of the latest change listeners were told of. */
  private final AtomicLong told = new AtomicLong(-1);
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  private final Watcher watcher = this::nodeChanged;
  private final ConnectionStateListener connection = this::connectionChanged;

  /**
   * A count at {@code path}, {@code seedValue} until started.
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path
   */
  public SharedCount(CoordinationClient client, String path, int seedValue) {
    this.client = Objects.requireNonNull(client, "client");
    this.path = Objects.requireNonNull(path, "path");
    PathRules.violation(path).ifPresent(rule -> {
      throw new IllegalArgumentException(PathRules.describe(path, rule));
    });
    this.seedValue = seedValue;
    this.seen = new AtomicReference<>(new Seen(new VersionedValue<>(-1, seedValue), -1));
  }

  /**
   * Creates the node with the seed value unless it exists, and reads the count.
   *
   * @throws IllegalStateException if started before, or the node does not hold a count (4 bytes)
   */
  public void start() throws CoordinationException, InterruptedException {
    if (!lifecycle.compareAndSet(Lifecycle.LATENT, Lifecycle.STARTED)) {
      throw new IllegalStateException("start() called on a shared count that is " + lifecycle.get());
    }
    client.addConnectionStateListener(connection);
    try {
      client.create(path, bytes(seedValue), CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
    } catch (NodeExistsException alreadyThere) {
      // another process started it first: its value stands
    }
    NodeData read = client.getData(path, watcher);
    see(read.stat(), count(read.data()));
    told.accumulateAndGet(read.stat().mzxid(), Math::max); // listeners hear of changes after the start
  }

  @Override
  public int getCount() {
    return seen.get().value().value();
  }

  @Override
  public VersionedValue<Integer> getVersionedValue() {
    return seen.get().value();
  }

  /**
   * Sets the count, whatever it was.
   *
   * @throws IllegalStateException if not started, or closed
   */
  public void setCount(int newCount) throws CoordinationException, InterruptedException {
    checkStarted();
    see(client.setData(path, bytes(newCount), -1), newCount);
  }

  /**
   * Sets the count only if {@code previous} is still the count as last seen
   * here and on the server (nobody set it since); otherwise reads it again and
   * returns false.
   *
   * @throws IllegalStateException if not started, or closed
   */
  public boolean trySetCount(VersionedValue<Integer> previous, int newCount)
      throws CoordinationException, InterruptedException {
    checkStarted();
    if (!previous.equals(seen.get().value())) {
      return false;
    }
    try {
      see(client.setData(path, bytes(newCount), previous.version()), newCount);
      return true;
    } catch (BadVersionException stale) {
      NodeData read = client.getData(path);
      see(read.stat(), count(read.data()));
      return false;
    }
  }

  /**
   * Curator's older form: sets the count only if nobody set it since this
   * instance last saw it, as {@code trySetCount(getVersionedValue(), newCount)}.
   *
   * @deprecated as in Curator: take the value with {@link #getVersionedValue()}
   *     and pass it to {@link #trySetCount(VersionedValue, int)}, so the check is
   *     against the value the caller decided on
   * @throws IllegalStateException if not started, or closed
   */
  @Deprecated
  public boolean trySetCount(int newCount) throws CoordinationException, InterruptedException {
    return trySetCount(getVersionedValue(), newCount);
  }

  @Override
  public void addListener(SharedCountListener listener) {
    addListener(listener, Runnable::run);
  }

  @Override
  public void addListener(SharedCountListener listener, Executor executor) {
    listeners.add(new Registered(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor,
        "executor")));
  }

  @Override
  public void removeListener(SharedCountListener listener) {
    listeners.removeIf(r -> r.listener() == listener);
  }

  /** Stops watching the node and telling listeners; the node stays. Harmless when closed already. */
  @Override
  public void close() {
    if (lifecycle.getAndSet(Lifecycle.CLOSED) != Lifecycle.STARTED) {
      return;
    }
    client.removeConnectionStateListener(connection);
    listeners.clear();
    client.async().removeWatches(path, watcher, WatcherType.DATA, true); // none left (a read under way) is fine
  }

  @Override
  public String toString() {
    return "SharedCount[" + path + " = " + getCount() + "]";
  }

  private void checkStarted() {
    if (lifecycle.get() != Lifecycle.STARTED) {
      throw new IllegalStateException("the shared count at " + path + " is " + lifecycle.get() + ", not started");
    }
  }

  private void nodeChanged(WatchedEvent event) {
    EventType type = event.type();
    if (type == EventType.NODE_DATA_CHANGED || type == EventType.NODE_CREATED || type == EventType.NODE_DELETED) {
      readAgain();
    }
  }

  private void connectionChanged(CoordinationClient from, ConnectionState state) {
    for (Registered r : listeners) {
      r.executor().execute(() -> r.listener().stateChanged(from, state));
    }
    if (state == ConnectionState.RECONNECTED) {
      readAgain(); // a change made while the connection was down fired nothing here, and a new session has no watch
    }
  }

  /** Reads the node in the background, watching it again, and tells listeners of a newer count. */
  private void readAgain() {
    if (lifecycle.get() != Lifecycle.STARTED) {
      return;
    }
    client.async().getData(path, watcher).whenComplete((read, failure) -> {
      if (failure == null) {
        try {
          see(read.stat(), count(read.data()));
          tell(read.stat());
        } catch (IllegalStateException notACount) {
          LOG.warn("ignoring the data of {}: {}", path, notACount.getMessage());
        }
      } else {
        // the node may be gone: heard of again once it is created (with the connection gone, this fails too,
        // and the count is read again on RECONNECTED)
        client.async().exists(path, watcher);
      }
    });
  }

  /** Takes a count read or written at {@code stat}'s version, unless a newer change was seen already. */
  private void see(Stat stat, int count) {
    Seen next = new Seen(new VersionedValue<>(stat.version(), count), stat.mzxid());
    seen.getAndUpdate(current -> next.mzxid() > current.mzxid() ? next : current);
  }

  /**
   * Tells listeners of the count, once for each change that a read after a watch event (or a reconnection)
   * found: a change made here too, as Curator's, but not twice.
   */
  private void tell(Stat stat) {
    long before = told.getAndAccumulate(stat.mzxid(), Math::max);
    if (stat.mzxid() <= before || lifecycle.get() != Lifecycle.STARTED) {
      return;
    }
    int count = getCount();
    for (Registered r : listeners) {
      r.executor().execute(() -> {
        try {
          r.listener().countHasChanged(this, count);
        } catch (Exception e) {
          LOG.warn("a listener of the shared count at {} failed", path, e);
        }
      });
    }
  }

  private int count(byte[] data) {
    if (data.length != Integer.BYTES) {
      throw new IllegalStateException(path + " does not hold a shared count: " + data.length
          + " bytes, not " + Integer.BYTES);
    }
    return ByteBuffer.wrap(data).getInt();
  }

  private static byte[] bytes(int count) {
    return ByteBuffer.allocate(Integer.BYTES).putInt(count).array();
  }
}
