package dev.corral.server.replication;

import dev.corral.proto.internal.LogEntry;
import dev.corral.server.tree.TreeRules;
import java.time.Clock;

/**
 * The time the leader writes into each log entry as it takes it: the clock's
 * reading, but never earlier than an entry stamped or applied before (the
 * clock may step back, and a new leader's clock may lag the old one's).
 * Followers never read their own clock for the tree: every time-like value
 * (ctime, mtime, TTL deadlines) comes from the entry.
 */
final class EntryClock {
  private final Clock clock;
  private long last; // guarded by this

  EntryClock(Clock clock) {
    this.clock = clock;
  }

  /** The time for the next entry taken into the log. */
  synchronized long stamp() {
    last = Math.max(last, clock.millis());
    return last;
  }

  /**
   * What the server taking an entry into the log writes into it, the same for
   * a single server's log and a Raft leader's: {@link #stamp()}'s time and the
   * tree rules every member is to apply it by ({@link TreeRules#CURRENT}).
   */
  LogEntry stampFields() {
    return LogEntry.newBuilder().setTimeMs(stamp()).setRules(TreeRules.CURRENT.version()).build();
  }

  /** An entry with this time was applied here (perhaps stamped by an earlier leader). */
  synchronized void applied(long entryTimeMs) {
    last = Math.max(last, entryTimeMs);
  }
}
