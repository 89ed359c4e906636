package dev.corral.recipes.lock;

import dev.corral.client.CoordinationClient;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A fair read/write lock across processes, as Curator's
 * {@code InterProcessReadWriteLock}: many readers or one writer, in one lock
 * path, ordered by sequence.
 *
 * <ul>
 *   <li>A reader is granted unless a write node comes before it; it then
 *       watches only the nearest earlier write node.
 *   <li>A writer is granted only when its node is the first; it watches only
 *       its immediate predecessor.
 *   <li>So a waiting writer blocks every later reader: writers are not starved.
 *   <li>Downgrade: the holder of the write lock may acquire the read lock (at
 *       once), then release the write lock, and keeps reading. Unlike Curator,
 *       a writer that was already waiting does not overtake the downgraded
 *       reader: its read node is marked, and writers wait for it. Upgrading (a
 *       reader acquiring the write lock) waits for its own read node: it
 *       deadlocks, as in Curator, unless a timeout is given.
 * </ul>
 *
 * <p>Both locks are {@link InterProcessMutex}es over the same path, differing
 * only in node name and ordering rule; each is reentrant per thread and has
 * its own fencing token (its node's creation zxid).
 */
public final class InterProcessReadWriteLock {
  private static final String READ_NAME = "read-";
  private static final String WRITE_NAME = "write-";
  /** The read node of a write-lock holder (a downgrade): later in sequence than writers already waiting. */
  private static final String DOWNGRADE_NAME = "downgrade-read-";

  private final InterProcessMutex writeLock;
  private final InterProcessMutex readLock;

  /**
   * A read/write lock on {@code path} (created on first use, as a container).
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, or is the root
   */
  public InterProcessReadWriteLock(CoordinationClient client, String path) {
    this(client, path, new byte[0]);
  }

  /**
   * A read/write lock on {@code path} whose lock nodes hold {@code lockData} (copied), as Curator's.
   *
   * @throws IllegalArgumentException if {@code path} is not a valid path, or is the root
   */
  public InterProcessReadWriteLock(CoordinationClient client, String path, byte[] lockData) {
    Objects.requireNonNull(lockData, "lockData");
    Predicate<String> reader = name -> name.startsWith(READ_NAME) || name.startsWith(DOWNGRADE_NAME);
    Predicate<String> writer = name -> name.startsWith(WRITE_NAME);
    Predicate<String> either = reader.or(writer);
    this.writeLock = new InterProcessMutex(client, path, () -> WRITE_NAME, OrderingRule.writers(DOWNGRADE_NAME),
        either, writer, lockData);
    InterProcessMutex writeLock = this.writeLock;
    this.readLock = new InterProcessMutex(client, path,
        () -> writeLock.isOwnedByCurrentThread() ? DOWNGRADE_NAME : READ_NAME,
        OrderingRule.readers(WRITE_NAME, writeLock::isOwnedByCurrentThread), either, reader, lockData);
  }

  /** The read lock: shared with other readers, excluded by a writer that came earlier. */
  public InterProcessMutex readLock() {
    return readLock;
  }

  /** The write lock: exclusive. */
  public InterProcessMutex writeLock() {
    return writeLock;
  }
}
