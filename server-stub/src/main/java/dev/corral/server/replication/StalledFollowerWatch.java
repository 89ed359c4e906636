package dev.corral.server.replication;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Spots a follower the leader has stopped bringing up to date although it
 * answers: Ratis 3.3.0 can leave a member that restarts with an uncommitted
 * tail of its own behind for good (RATIS-2605: a heartbeat reply raises the
 * leader's match index for it, and the leader then never backs off far enough
 * to find where their logs agree). Seen in the bench: a killed leader came back
 * and stayed behind for minutes, its log repeating INCONSISTENCY replies, until
 * leadership changed, since a new leader starts every follower afresh.
 *
 * <p>A follower counts as stalled when, for {@code stall} on end, it answered
 * the leader recently, its match index stayed the same, and it was below the
 * commit index. Pure: the replicator feeds it what Ratis reports and steps
 * down when it names a follower.
 */
final class StalledFollowerWatch {
  /** One follower as the leader sees it now. */
  record Follower(String id, long matchIndex, long lastReplyAgoMs) {}

  /**
   * A follower silent for less than this still counts as answering, however
   * short the election timeout: Ratis's appender retries ever more slowly
   * after INCONSISTENCY replies. A follower stuck in that loop, its match
   * index the same throughout, was never named in minutes under the earlier
   * limit of twice the election timeout (0.8 s by default). Its replies,
   * sampled five times, were 0.36-0.56 s old; a check that found one older
   * than 0.8 s, the only way its clock could start over, must have come at
   * least once every 20 s.
   */
  static final Duration ANSWERING_AT_LEAST = Duration.ofSeconds(5);

  private final long stallNanos;
  private final long answeringMs;
  private final Map<String, Since> stuck = new HashMap<>();
  private long term = -1;

  private record Since(long matchIndex, long sinceNanos) {}

  /**
   * @param stall how long a follower may stay behind without progress
   * @param answering a follower whose last reply is older than this is down or
   *     cut off, not stalled: stepping down would not help it
   */
  StalledFollowerWatch(Duration stall, Duration answering) {
    this.stallNanos = stall.toNanos();
    this.answeringMs = answering.toMillis();
  }

  /**
   * The watch for a group with this election timeout: a follower silent for
   * longer than twice the timeout, and at least {@link #ANSWERING_AT_LEAST},
   * is down, and starts over once it answers again.
   */
  static StalledFollowerWatch forElectionTimeout(Duration stall, Duration electionTimeoutMax) {
    Duration twice = electionTimeoutMax.multipliedBy(2);
    return new StalledFollowerWatch(stall, twice.compareTo(ANSWERING_AT_LEAST) > 0 ? twice : ANSWERING_AT_LEAST);
  }

  /**
   * Looks at the followers of the leader of {@code term}; returns one that has
   * stalled, if any. A new term starts over.
   */
  Optional<Follower> check(long term, long commitIndex, List<Follower> followers, long nowNanos) {
    if (term != this.term) {
      this.term = term;
      stuck.clear();
    }
    Optional<Follower> stalled = Optional.empty();
    for (Follower f : followers) {
      boolean behind = f.matchIndex() < commitIndex && f.lastReplyAgoMs() <= answeringMs;
      Since since = stuck.get(f.id());
      if (!behind) {
        stuck.remove(f.id());
      } else if (since == null || since.matchIndex() != f.matchIndex()) {
        stuck.put(f.id(), new Since(f.matchIndex(), nowNanos));
      } else if (nowNanos - since.sinceNanos() >= stallNanos && stalled.isEmpty()) {
        stalled = Optional.of(f);
      }
    }
    return stalled;
  }
}
