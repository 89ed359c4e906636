package dev.corral.server.replication;

import java.time.Duration;

/**
 * When a member stops serving sessions for want of a leader: once it has
 * neither led nor heard from a leader for the limit. A session lasts at least
 * two ticks, and its member tells the leader of it every half tick, so the
 * majority may expire it 1.5 ticks after the member was cut off: the limit is
 * one tick at most, so that the session's client hears SUSPENDED first (and a
 * lock holder or leader on it stops acting as one). Within that, it is two
 * election timeouts, at least 1 s, so that an ordinary failover (a few hundred
 * milliseconds with the default timeouts) does not end every client's stream.
 * A Raft leader cut off from the majority steps down, so it is caught too.
 * Used on one thread.
 */
final class LeaderlessWatch {
  /** What a check finds. */
  enum Verdict {
    /** A leader is heard from, as at the check before. */
    SERVING,
    /** A leader is heard from again after a spell without one. */
    SERVING_AGAIN,
    /** No leader heard from, but not yet for the limit. */
    WAITING,
    /** No leader heard from for the limit or longer. */
    LEADERLESS
  }

  private final long limitNanos;
  private long leaderHeardNanos;
  private boolean leaderless;

  LeaderlessWatch(Duration limit, long nowNanos) {
    this.limitNanos = limit.toNanos();
    this.leaderHeardNanos = nowNanos;
  }

  static Duration limitFor(Duration electionTimeoutMax, Duration sessionTick) {
    Duration wanted = ReplicationConfig.twoElectionTimeouts(electionTimeoutMax);
    return wanted.compareTo(sessionTick) < 0 ? wanted : sessionTick;
  }

  /** The limit: a follower that last heard from its leader longer ago than this has none. */
  Duration limit() {
    return Duration.ofNanos(limitNanos);
  }

  /** {@code leaderHeard}: this member leads, or heard from its leader within the limit. */
  Verdict check(boolean leaderHeard, long nowNanos) {
    if (leaderHeard) {
      leaderHeardNanos = nowNanos;
      boolean was = leaderless;
      leaderless = false;
      return was ? Verdict.SERVING_AGAIN : Verdict.SERVING;
    }
    leaderless = nowNanos - leaderHeardNanos >= limitNanos;
    return leaderless ? Verdict.LEADERLESS : Verdict.WAITING;
  }

  /** How long no leader has been heard from, at {@code nowNanos}. */
  Duration silence(long nowNanos) {
    return Duration.ofNanos(nowNanos - leaderHeardNanos);
  }
}
