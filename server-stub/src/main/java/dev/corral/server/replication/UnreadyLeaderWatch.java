package dev.corral.server.replication;

import java.time.Duration;

/**
 * Spots a leader that was elected but cannot commit the first entry of its
 * term. Ratis 3.3.0 can leave a new leader in a loop of INCONSISTENCY replies
 * with the only live follower (RATIS-2605, see {@link StalledFollowerWatch}):
 * measured in the bench, writes stopped for 10.5 s after a kill -9 of the
 * leader, until Ratis's own step-down and a second election in which the same
 * member started its appenders afresh. A leader not ready for {@code limit},
 * with no follower's match index moving meanwhile (a follower catching up
 * after a restart moves), steps down at once instead. Pure: the replicator
 * feeds it what Ratis reports.
 */
final class UnreadyLeaderWatch {
  private final long limitNanos;
  private long term = -1;
  private long unreadySince;
  private long progress;

  UnreadyLeaderWatch(Duration limit) {
    this.limitNanos = limit.toNanos();
  }

  /**
   * True when this member has led {@code term} without being ready, and the
   * followers made no progress ({@code followerProgress}, e.g. the sum of
   * their match indices, stayed the same), for at least the limit.
   */
  boolean stuck(long term, boolean ready, long followerProgress, long nowNanos) {
    if (term != this.term || (followerProgress != progress && unreadySince != Long.MAX_VALUE)) {
      this.term = term;
      unreadySince = nowNanos;
    }
    progress = followerProgress;
    if (ready) {
      unreadySince = Long.MAX_VALUE;
      return false;
    }
    return unreadySince != Long.MAX_VALUE && nowNanos - unreadySince >= limitNanos;
  }
}
