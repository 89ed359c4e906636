package dev.corral.server;

import dev.corral.server.replication.ReplicationConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * How a server runs. Immutable; built with {@link #builder()}, which fails fast
 * on a value out of range or a setting given twice.
 *
 * @param host address the client port binds to
 * @param port client port (0 picks a free port)
 * @param raftPort Raft peer port on loopback (0 picks a free port)
 * @param dataDir where the Raft log and snapshots live
 * @param tick the session tick: timeouts are negotiated into [2 x tick, 20 x tick]
 * @param maxDataBytes largest node data accepted (DATA_TOO_LARGE above)
 * @param maxRequestBytes largest message accepted on a stream (the stream is refused above)
 * @param maxOutstandingRequests requests of one session in flight before flow control holds back
 * @param maxUnreadBytes bytes sent to a stream whose client is not reading before the stream is ended
 *     with CLIENT_NOT_READING: what a client that stops reading may hold in the server's memory
 * @param snapshotEvery take a snapshot after this many log entries
 * @param ttlCheckInterval how often expired TTL nodes are looked for
 * @param memberId this server's id in {@code members}
 * @param members every server of the ensemble (one, this server, by default)
 * @param electionTimeoutMin a follower that hears no leader for a random time in
 *     [min, max] starts an election; a shorter timeout replaces a dead leader sooner
 * @param electionTimeoutMax see {@code electionTimeoutMin}
 * @param operationTimeout a write not applied here within this time fails with
 *     OPERATION_TIMEOUT (its outcome unknown)
 * @param logSegmentBytes size at which a log segment file is closed and the next begun, when set;
 *     by default each log's own: {@link ReplicationConfig#DEFAULT_LOCAL_LOG_SEGMENT_BYTES} for a single
 *     server, {@link ReplicationConfig#DEFAULT_RAFT_LOG_SEGMENT_BYTES} for a Raft log. A log is purged
 *     behind snapshots a whole segment at a time
 */
public record ServerConfig(
    String host,
    int port,
    int raftPort,
    Path dataDir,
    Duration tick,
    int maxDataBytes,
    int maxRequestBytes,
    int maxOutstandingRequests,
    long maxUnreadBytes,
    long snapshotEvery,
    Duration ttlCheckInterval,
    String memberId,
    List<EnsembleMember> members,
    Duration electionTimeoutMin,
    Duration electionTimeoutMax,
    Duration operationTimeout,
    OptionalLong logSegmentBytes) {

  public static final int DEFAULT_PORT = 7181;
  public static final Duration DEFAULT_TICK = Duration.ofSeconds(2);
  public static final int DEFAULT_MAX_DATA_BYTES = 1024 * 1024;
  public static final long DEFAULT_MAX_UNREAD_BYTES = 64L << 20;
  /** The member id of a single server: stable, since the Raft log names it. */
  public static final String SINGLE_MEMBER_ID = "1";
  /**
   * Election timeouts of an ensemble member, by measurement (bench W6, 3 member JVMs on 2 cores, load
   * average 4-14): after kill -9 of the leader, the first write came 0.79 s later (median of 5) with
   * 200-400 ms, 1.04 s with 300-600 ms (ZooKeeper: 0.79 s); 1000-2000 ms took ~2 s to elect. None had a
   * spurious leader change in 60 s of load. Ratis's 150-300 ms lost leaders to GC and JIT pauses here.
   */
  public static final Duration DEFAULT_ELECTION_TIMEOUT_MIN = Duration.ofMillis(200);
  public static final Duration DEFAULT_ELECTION_TIMEOUT_MAX = Duration.ofMillis(400);

  public ServerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(dataDir, "dataDir");
    requireRange("port", port, 0, 65535);
    requireRange("raftPort", raftPort, 0, 65535);
    if (tick.isNegative() || tick.isZero()) {
      throw new IllegalArgumentException("tick must be positive, was " + tick);
    }
    requireRange("maxDataBytes", maxDataBytes, 1, Integer.MAX_VALUE);
    if (maxRequestBytes <= maxDataBytes) {
      throw new IllegalArgumentException(
          "maxRequestBytes (" + maxRequestBytes + ") must exceed maxDataBytes (" + maxDataBytes + ")");
    }
    requireRange("maxOutstandingRequests", maxOutstandingRequests, 1, 1_000_000);
    if (maxUnreadBytes < 1) {
      throw new IllegalArgumentException("maxUnreadBytes must be positive, was " + maxUnreadBytes);
    }
    if (snapshotEvery < 1) {
      throw new IllegalArgumentException("snapshotEvery must be >= 1, was " + snapshotEvery);
    }
    if (ttlCheckInterval.isNegative() || ttlCheckInterval.isZero()) {
      throw new IllegalArgumentException("ttlCheckInterval must be positive, was " + ttlCheckInterval);
    }
    members = List.copyOf(members);
    checkEnsemble(memberId, members);
    if (electionTimeoutMin.toMillis() < 10 || electionTimeoutMax.compareTo(electionTimeoutMin) < 0) {
      throw new IllegalArgumentException("election timeout must be at least 10ms and max >= min, was "
          + electionTimeoutMin.toMillis() + "ms-" + electionTimeoutMax.toMillis() + "ms");
    }
    Objects.requireNonNull(logSegmentBytes, "logSegmentBytes");
    if (logSegmentBytes.isPresent() && logSegmentBytes.getAsLong() < ReplicationConfig.MIN_LOG_SEGMENT_BYTES) {
      throw new IllegalArgumentException("logSegmentBytes must be at least "
          + ReplicationConfig.MIN_LOG_SEGMENT_BYTES + ", was " + logSegmentBytes.getAsLong());
    }
    if (operationTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("operationTimeout must be positive, was " + operationTimeout);
    }
  }

  private static void checkEnsemble(String memberId, List<EnsembleMember> members) {
    Set<String> ids = new HashSet<>();
    Set<String> addresses = new HashSet<>();
    for (EnsembleMember m : members) {
      if (!ids.add(m.id())) {
        throw new IllegalArgumentException("server." + m.id() + " is listed twice");
      }
      if (!addresses.add(m.host() + ":" + m.clientPort()) | !addresses.add(m.host() + ":" + m.peerPort())) {
        throw new IllegalArgumentException("server." + m.id() + " reuses a port of another server");
      }
    }
    if (!members.isEmpty() && !ids.contains(memberId)) {
      throw new IllegalArgumentException("id " + memberId + " is not one of the servers " + ids);
    }
  }

  /** True when this server is one member of a multi-server ensemble. */
  public boolean isEnsemble() {
    return members.size() > 1;
  }

  /** The client addresses of every member, as a client connect string. */
  public String ensembleConnectString() {
    return members.stream().map(EnsembleMember::clientAddress).collect(java.util.stream.Collectors.joining(","));
  }

  /** The smallest session timeout granted: 2 ticks. */
  public Duration minSessionTimeout() {
    return tick.multipliedBy(2);
  }

  /** The largest session timeout granted: 20 ticks. */
  public Duration maxSessionTimeout() {
    return tick.multipliedBy(20);
  }

  /** The session timeout granted for a requested one (0 or less asks for the minimum). */
  public int negotiateTimeoutMs(int requestedMs) {
    long min = minSessionTimeout().toMillis();
    long max = maxSessionTimeout().toMillis();
    return (int) Math.max(min, Math.min(max, requestedMs));
  }

  public static Builder builder() {
    return new Builder();
  }

  private static void requireRange(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was " + value);
    }
  }

  /** Builds a {@link ServerConfig}; each setting may be given once. */
  public static final class Builder {
    private final Set<String> given = new HashSet<>();
    private String host = "127.0.0.1";
    private int port = DEFAULT_PORT;
    private int raftPort = 0;
    private Path dataDir = Path.of("data");
    private Duration tick = DEFAULT_TICK;
    private int maxDataBytes = DEFAULT_MAX_DATA_BYTES;
    private Integer maxRequestBytes;
    private int maxOutstandingRequests = 1000;
    private long maxUnreadBytes = DEFAULT_MAX_UNREAD_BYTES;
    private long snapshotEvery = 100_000;
    private Duration ttlCheckInterval;
    private String memberId;
    private List<EnsembleMember> members = List.of();
    private Duration electionTimeoutMin;
    private Duration electionTimeoutMax;
    private Duration operationTimeout = Duration.ofSeconds(10);
    private OptionalLong logSegmentBytes = OptionalLong.empty();

    private Builder() {}

    private void once(String name) {
      if (!given.add(name)) {
        throw new IllegalStateException(name + " was already set");
      }
    }

    public Builder host(String host) {
      once("host");
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      once("port");
      this.port = port;
      return this;
    }

    public Builder raftPort(int raftPort) {
      once("raftPort");
      this.raftPort = raftPort;
      return this;
    }

    public Builder dataDir(Path dataDir) {
      once("dataDir");
      this.dataDir = dataDir;
      return this;
    }

    public Builder tick(Duration tick) {
      once("tick");
      this.tick = tick;
      return this;
    }

    public Builder maxDataBytes(int maxDataBytes) {
      once("maxDataBytes");
      this.maxDataBytes = maxDataBytes;
      return this;
    }

    public Builder maxRequestBytes(int maxRequestBytes) {
      once("maxRequestBytes");
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    public Builder maxOutstandingRequests(int maxOutstandingRequests) {
      once("maxOutstandingRequests");
      this.maxOutstandingRequests = maxOutstandingRequests;
      return this;
    }

    public Builder maxUnreadBytes(long maxUnreadBytes) {
      once("maxUnreadBytes");
      this.maxUnreadBytes = maxUnreadBytes;
      return this;
    }

    public Builder snapshotEvery(long entries) {
      once("snapshotEvery");
      this.snapshotEvery = entries;
      return this;
    }

    public Builder ttlCheckInterval(Duration interval) {
      once("ttlCheckInterval");
      this.ttlCheckInterval = interval;
      return this;
    }

    /**
     * Makes this server member {@code id} of an ensemble of {@code members}. Its
     * host, client port and Raft port come from its own entry unless set.
     */
    public Builder ensemble(String id, List<EnsembleMember> members) {
      once("ensemble");
      this.memberId = Objects.requireNonNull(id, "id");
      this.members = List.copyOf(members);
      return this;
    }

    /** A follower that hears no leader for a random time in [min, max] starts an election. */
    public Builder electionTimeout(Duration min, Duration max) {
      once("electionTimeout");
      this.electionTimeoutMin = Objects.requireNonNull(min, "min");
      this.electionTimeoutMax = Objects.requireNonNull(max, "max");
      return this;
    }

    public Builder operationTimeout(Duration timeout) {
      once("operationTimeout");
      this.operationTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** Size at which a log segment file is closed, instead of each log's default (see the record's doc). */
    public Builder logSegmentBytes(long bytes) {
      once("logSegmentBytes");
      this.logSegmentBytes = OptionalLong.of(bytes);
      return this;
    }

    public ServerConfig build() {
      int requestCap = maxRequestBytes != null ? maxRequestBytes : Math.max(4 * 1024 * 1024, maxDataBytes + 1024 * 1024);
      Duration ttlEvery = ttlCheckInterval != null ? ttlCheckInterval : tick;
      String id = memberId != null ? memberId : SINGLE_MEMBER_ID;
      List<EnsembleMember> all = members;
      String bindHost = host;
      int clientPort = port;
      int peerPort = raftPort;
      if (!all.isEmpty()) {
        EnsembleMember self = all.stream().filter(m -> m.id().equals(id)).findFirst().orElse(null);
        if (self != null) {
          bindHost = given.contains("host") ? host : self.host();
          clientPort = given.contains("port") ? port : self.clientPort();
          peerPort = given.contains("raftPort") ? raftPort : self.peerPort();
        }
      }
      boolean single = all.size() <= 1;
      // A group of one cannot have a spurious election: a short timeout only shortens the wait to lead at start.
      Duration min = electionTimeoutMin != null ? electionTimeoutMin
          : single ? Duration.ofMillis(100) : DEFAULT_ELECTION_TIMEOUT_MIN;
      Duration max = electionTimeoutMax != null ? electionTimeoutMax
          : single ? Duration.ofMillis(200) : DEFAULT_ELECTION_TIMEOUT_MAX;
      return new ServerConfig(bindHost, clientPort, peerPort, dataDir, tick, maxDataBytes, requestCap,
          maxOutstandingRequests, maxUnreadBytes, snapshotEvery, ttlEvery, id, all, min, max, operationTimeout,
          logSegmentBytes);
    }
  }
}
