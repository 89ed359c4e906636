package dev.corral.server.replication;

import dev.corral.server.tree.Zxid;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * How a {@link RaftReplicator} runs: where it keeps its log and snapshots, which
 * members form the group and which one this server is, and the knobs of group
 * commit, snapshots and elections. Immutable; built by {@link #builder()}, which
 * fails fast on a missing, repeated or conflicting setting.
 */
public final class ReplicationConfig {
  /**
   * The Raft log is kept in memory up to about two segments (the open one, and the last closed one until the
   * next closes), and purged behind snapshots a segment at a time; 32 MiB segments held bench MEM's whole log
   * (16 MiB for 100,000 creates) on the heap. An entry larger than a segment still goes into one (Ratis writes
   * it into the open segment).
   */
  public static final long DEFAULT_RAFT_LOG_SEGMENT_BYTES = 1L << 20;
  /**
   * A single server's {@link LocalLog} keeps nothing in memory, and each roll to a new segment costs a
   * directory fsync on the writer's thread and a freshly zero-filled file made durable beside it, on the
   * disk the log's own flushes wait for. At 1 MiB, 8 writers of 1 KiB rolled about 8 times a second;
   * 64 MiB segments, as ZooKeeper's and etcd's logs preallocate, did 3.6-7.1% more writes a second
   * (alternating against 1 MiB, 5 runs of 12-14 rounds: setData 1.039, 1.047, 1.071x; create+delete
   * 1.045, 1.036x). A fresh log takes 128 MiB of disk: the open segment and the spare.
   */
  public static final long DEFAULT_LOCAL_LOG_SEGMENT_BYTES = 64L << 20;
  /** See {@link #batchWait()}. */
  static final Duration DEFAULT_ENSEMBLE_BATCH_WAIT = Duration.ofMillis(2);
  /** See {@link #batchWait()}. */
  static final Duration DEFAULT_SINGLE_SERVER_BATCH_WAIT = Duration.ofNanos(500_000);
  public static final long MIN_LOG_SEGMENT_BYTES = 16L << 10;

  private final Path dataDir;
  private final String self;
  private final List<RaftMember> members;
  private final String groupName;
  private final long snapshotThreshold;
  private final int snapshotsRetained;
  private final Duration electionTimeoutMin;
  private final Duration electionTimeoutMax;
  private final Duration sessionTick;
  private final int maxTxnsPerEntry;
  private final int maxEntryBytes;
  private final int maxEntriesInFlight;
  private final Duration batchWait;
  private final OptionalLong logSegmentBytes; // set for every log, or each log's own default
  private final Duration operationTimeout;
  private final Duration startTimeout;
  private final Clock clock;

  private ReplicationConfig(Builder b) {
    dataDir = require(b.dataDir, "dataDir");
    self = require(b.self, "self");
    members = List.copyOf(require(b.members, "members"));
    groupName = or(b.groupName, "corral");
    snapshotThreshold = or(b.snapshotThreshold, 100_000L);
    snapshotsRetained = or(b.snapshotsRetained, 2);
    electionTimeoutMin = or(b.electionTimeoutMin, Duration.ofSeconds(1));
    electionTimeoutMax = or(b.electionTimeoutMax, Duration.ofSeconds(2));
    sessionTick = or(b.sessionTick, Duration.ofSeconds(2));
    maxTxnsPerEntry = or(b.maxTxnsPerEntry, 1_000);
    maxEntryBytes = or(b.maxEntryBytes, 2 << 20);
    maxEntriesInFlight = or(b.maxEntriesInFlight, members.size() > 1 ? 1 : 4);
    batchWait = or(b.batchWait, members.size() > 1 ? DEFAULT_ENSEMBLE_BATCH_WAIT : DEFAULT_SINGLE_SERVER_BATCH_WAIT);
    logSegmentBytes = b.logSegmentBytes == null ? OptionalLong.empty() : OptionalLong.of(b.logSegmentBytes);
    operationTimeout = or(b.operationTimeout, Duration.ofSeconds(10));
    startTimeout = or(b.startTimeout, Duration.ofSeconds(30));
    clock = or(b.clock, Clock.systemUTC());
    validate();
  }

  private void validate() {
    Set<String> ids = new HashSet<>();
    for (RaftMember m : members) {
      check(ids.add(m.id()), "member id " + m.id() + " appears twice");
    }
    check(ids.contains(self), "self " + self + " is not one of the members " + ids);
    check(!members.isEmpty(), "members is empty");
    check(snapshotThreshold > 0, "snapshotThreshold must be positive");
    check(snapshotsRetained > 0, "snapshotsRetained must be positive");
    check(electionTimeoutMin.compareTo(Duration.ZERO) > 0, "electionTimeoutMin must be positive");
    check(electionTimeoutMin.compareTo(electionTimeoutMax) < 0,
        "electionTimeoutMin " + electionTimeoutMin + " must be below electionTimeoutMax " + electionTimeoutMax);
    check(sessionTick.compareTo(Duration.ZERO) > 0, "sessionTick must be positive");
    check(maxTxnsPerEntry > 0 && maxTxnsPerEntry <= Zxid.MAX_TXNS_PER_ENTRY,
        "maxTxnsPerEntry must be in [1, " + Zxid.MAX_TXNS_PER_ENTRY + "]");
    check(maxEntryBytes > 0, "maxEntryBytes must be positive");
    check(maxEntriesInFlight > 0, "maxEntriesInFlight must be positive");
    check(!batchWait.isNegative(), "batchWait must not be negative");
    check(logSegmentBytes.orElse(MIN_LOG_SEGMENT_BYTES) >= MIN_LOG_SEGMENT_BYTES,
        "logSegmentBytes must be at least 16 KiB");
    check(operationTimeout.compareTo(Duration.ZERO) > 0, "operationTimeout must be positive");
    check(startTimeout.compareTo(Duration.ZERO) > 0, "startTimeout must be positive");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Where the Raft log, its metadata and the snapshots live (one directory per group inside). */
  public Path dataDir() {
    return dataDir;
  }

  /** The id of this server's member. */
  public String self() {
    return self;
  }

  public RaftMember selfMember() {
    return members.stream().filter(m -> m.id().equals(self)).findFirst().orElseThrow();
  }

  /** Every member of the group, this server included. */
  public List<RaftMember> members() {
    return members;
  }

  /** Names the Raft group; every member must use the same name. Default "corral". */
  public String groupName() {
    return groupName;
  }

  /** A snapshot is taken once this many log entries were applied since the last one. Default 100,000. */
  public long snapshotThreshold() {
    return snapshotThreshold;
  }

  /** How many snapshot files are kept. Default 2. */
  public int snapshotsRetained() {
    return snapshotsRetained;
  }

  /** Lower bound of the randomized election timeout. Default 1 s. */
  public Duration electionTimeoutMin() {
    return electionTimeoutMin;
  }

  /** Upper bound of the randomized election timeout. Default 2 s. */
  public Duration electionTimeoutMax() {
    return electionTimeoutMax;
  }

  /**
   * Two election timeouts, at least 1 s: longer than an ordinary election
   * takes, so how long the watches that act when none succeeds let one run
   * ({@link UnreadyLeaderWatch}, {@link LeaderlessWatch}).
   */
  static Duration twoElectionTimeouts(Duration electionTimeoutMax) {
    Duration twice = electionTimeoutMax.multipliedBy(2);
    return twice.compareTo(Duration.ofSeconds(1)) > 0 ? twice : Duration.ofSeconds(1);
  }

  /**
   * The server's session tick (sessions last at least two): a member that hears
   * from no leader for about this long stops serving sessions. Default 2 s.
   */
  public Duration sessionTick() {
    return sessionTick;
  }

  /** Most txns packed into one log entry. Default 1,000. */
  public int maxTxnsPerEntry() {
    return maxTxnsPerEntry;
  }

  /** Most serialized txn bytes packed into one log entry (a larger single txn goes alone). Default 2 MiB. */
  public int maxEntryBytes() {
    return maxEntryBytes;
  }

  /**
   * Most log entries submitted and not yet answered. Default 4 for a single
   * server; 1 in an ensemble, where each Raft entry costs every member several
   * thread hand-offs and messages, so that everything that queues up behind an
   * entry shares the next one (8 writers on 3 members, 2 cores: 1,200-1,550
   * setData/s with 1, 900-1,150 with 4, at 3.7 and 1.4 txns per entry).
   */
  public int maxEntriesInFlight() {
    return maxEntriesInFlight;
  }

  /**
   * Longest time the leader holds the next log entry back while fewer txns are
   * queued for it than are expected back: those that queued behind the entry
   * before it, and one for each of that entry's txns whose session comes back
   * promptly as a rule (see {@link GroupCommitProposer}). 0 sends at once.
   * Default 2 ms in an ensemble, 0.5 ms for a single server.
   *
   * <p>Why: with one entry in flight and no wait, the callers fell into two
   * groups taking turns, each in every other entry (3.6 txns per entry for 8
   * writers), as a follower's callers hear of a commit one hop later than the
   * leader's. Each Raft entry costs every member several messages and thread
   * hand-offs, so that 8 writers on 3 members, 2 cores, were bound by the cost
   * per entry. Waiting for the expected txns packs them into one entry again:
   * one warm ensemble, the wait switched between phases of 20 s (5 each), did
   * 2,368 setData/s with 2 ms against 1,676 without (7.8 and 3.9 txns per
   * entry); 3 writers 1,009 against 792; 1 writer 437 against 426. (A first
   * version, which counted too many, did about as well with 1, 2 and 4 ms.)
   * A lone caller is never held: it is all that is expected back.
   *
   * <p>Only sessions that come back within this wait are expected. Expecting
   * every answered txn back, one writer in a loop beside 7 that paused 2 ms
   * between writes did 364-371 setData/s at 2.7 ms p50 on a 3-member ensemble
   * (2 cores), where with no wait it did 513-708 at 1.3-1.8 ms: every entry
   * that carried a pausing writer's txn held the next for the whole wait.
   * Expecting only the prompt ones (then: those that did last time), it did
   * 603-689 at 1.3-1.4 ms, and 8 writers in a loop still did as many as
   * before (5,851-6,868 setData/s before, 6,151-6,875 after).
   *
   * <p>A single server's entry costs one fsync of a preallocated file (about
   * 0.1 ms here) and no messages, but there too 8 writers fell into groups
   * taking turns, 2.9-3.2 txns per entry, the log writing back to back. With
   * 300 us, 8 writers' entries carried 7.6-7.9 txns, the server spent 23-25 us
   * of CPU per write instead of 31-36, and they did 23,563-27,922 setData/s
   * against 20,440-24,556 (30 s runs, alternating); as many with 500 us
   * (27,124-28,075), which leaves room for callers slower to come back (here
   * 170-190 us from an answer to the next txn). Sessions that come back
   * promptly only in bursts are not waited for (see {@link GroupCommitProposer}):
   * expecting every session that came back promptly last time, the wait cut
   * W3's contended lock from 2,630-2,910 acquisitions/s to 2,236. With the
   * latest time weighing half instead of an eighth (and 0.95 to reach), the
   * bench's W1 with 8 clients did setData 26,241 and 26,392/s against 22,230
   * and 21,973, delete 26,940 and 25,379 against 23,224 and 22,505, create
   * 23,702 and 22,186 against 24,610 and 22,756 (two runs of each,
   * alternating), and W3 2,610-2,647 against 2,423-2,699 (three each); but
   * an ensemble's followers' sessions, now and then back at the leader just
   * after the wait, dropped out of it for several entries (6.87-7.76 txns per
   * entry with 8 writers on the followers, against 7.84-7.87 before). With an
   * eighth: 7.85-7.94; W1 with 8 clients create 24,311 and 25,685/s, setData
   * 26,205 and 26,081, delete 26,800 and 27,495 (the old server's run between
   * them 20,493, 19,642 and 19,135), W3 2,730 and 2,716 against 2,687.
   */
  public Duration batchWait() {
    return batchWait;
  }

  /**
   * Size at which a Raft log segment file is closed and a new one started: the one set, else
   * {@link #DEFAULT_RAFT_LOG_SEGMENT_BYTES}.
   */
  public long raftLogSegmentBytes() {
    return logSegmentBytes.orElse(DEFAULT_RAFT_LOG_SEGMENT_BYTES);
  }

  /**
   * Size at which a single server's log segment file is closed and a new one started: the one set, else
   * {@link #DEFAULT_LOCAL_LOG_SEGMENT_BYTES}.
   */
  public long localLogSegmentBytes() {
    return logSegmentBytes.orElse(DEFAULT_LOCAL_LOG_SEGMENT_BYTES);
  }

  /** How long a proposal may wait for its result before it fails with OPERATION_TIMEOUT. Default 10 s. */
  public Duration operationTimeout() {
    return operationTimeout;
  }

  /** How long {@link RaftReplicator#start()} waits for a single-member group to elect itself and replay. Default 30 s. */
  public Duration startTimeout() {
    return startTimeout;
  }

  /** The clock whose milliseconds stamp log entries. Default the system UTC clock. */
  public Clock clock() {
    return clock;
  }

  private static <T> T require(T value, String name) {
    return Objects.requireNonNull(value, () -> name + " is not set");
  }

  private static <T> T or(T value, T fallback) {
    return value != null ? value : fallback;
  }

  private static void check(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  /** Builds a {@link ReplicationConfig}; each setting may be given once. */
  public static final class Builder {
    private Path dataDir;
    private String self;
    private List<RaftMember> members;
    private String groupName;
    private Long snapshotThreshold;
    private Integer snapshotsRetained;
    private Duration electionTimeoutMin;
    private Duration electionTimeoutMax;
    private Duration sessionTick;
    private Integer maxTxnsPerEntry;
    private Integer maxEntryBytes;
    private Integer maxEntriesInFlight;
    private Duration batchWait;
    private Long logSegmentBytes;
    private Duration operationTimeout;
    private Duration startTimeout;
    private Clock clock;

    private Builder() {}

    public Builder dataDir(Path dir) {
      dataDir = once(dataDir, dir, "dataDir");
      return this;
    }

    /** The group and this server's place in it. */
    public Builder members(String self, List<RaftMember> members) {
      this.self = once(this.self, self, "self");
      this.members = once(this.members, List.copyOf(members), "members");
      return this;
    }

    /** A group of one: this server alone. */
    public Builder singleMember(RaftMember member) {
      return members(member.id(), List.of(member));
    }

    public Builder groupName(String name) {
      groupName = once(groupName, name, "groupName");
      return this;
    }

    public Builder snapshotThreshold(long entries) {
      snapshotThreshold = once(snapshotThreshold, entries, "snapshotThreshold");
      return this;
    }

    public Builder snapshotsRetained(int files) {
      snapshotsRetained = once(snapshotsRetained, files, "snapshotsRetained");
      return this;
    }

    public Builder electionTimeout(Duration min, Duration max) {
      electionTimeoutMin = once(electionTimeoutMin, min, "electionTimeoutMin");
      electionTimeoutMax = once(electionTimeoutMax, max, "electionTimeoutMax");
      return this;
    }

    public Builder sessionTick(Duration tick) {
      sessionTick = once(sessionTick, tick, "sessionTick");
      return this;
    }

    public Builder maxTxnsPerEntry(int txns) {
      maxTxnsPerEntry = once(maxTxnsPerEntry, txns, "maxTxnsPerEntry");
      return this;
    }

    public Builder maxEntryBytes(int bytes) {
      maxEntryBytes = once(maxEntryBytes, bytes, "maxEntryBytes");
      return this;
    }

    public Builder maxEntriesInFlight(int entries) {
      maxEntriesInFlight = once(maxEntriesInFlight, entries, "maxEntriesInFlight");
      return this;
    }

    public Builder batchWait(Duration wait) {
      batchWait = once(batchWait, wait, "batchWait");
      return this;
    }

    public Builder logSegmentBytes(long bytes) {
      logSegmentBytes = once(logSegmentBytes, bytes, "logSegmentBytes");
      return this;
    }

    public Builder operationTimeout(Duration timeout) {
      operationTimeout = once(operationTimeout, timeout, "operationTimeout");
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      startTimeout = once(startTimeout, timeout, "startTimeout");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = once(this.clock, clock, "clock");
      return this;
    }

    public ReplicationConfig build() {
      return new ReplicationConfig(this);
    }

    private static <T> T once(T current, T value, String name) {
      Objects.requireNonNull(value, name);
      if (current != null) {
        throw new IllegalStateException(name + " is already set");
      }
      return value;
    }
  }
}
