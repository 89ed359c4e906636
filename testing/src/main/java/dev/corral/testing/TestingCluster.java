package dev.corral.testing;

import dev.corral.proto.v1.MemberStatus;
import dev.corral.proto.v1.Role;
import dev.corral.server.CorralServer;
import dev.corral.server.EnsembleMember;
import dev.corral.server.LoopbackPorts;
import dev.corral.server.ServerConfig;
import dev.corral.server.replication.RaftReplicator;
import dev.corral.server.rpc.AdminService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A real Corral ensemble for tests, as Curator's TestingCluster: {@code n}
 * members in this JVM, each on its own free loopback client and peer ports
 * with its own temporary data directory (deleted on {@link #close()}),
 * replicating over Raft as separate servers do.
 *
 * <pre>{@code
 * try (TestingCluster cluster = new TestingCluster(3)) {
 *   CoordinationClient client = CorralClient.builder().connectString(cluster.getConnectString()).build();
 *   cluster.killServer(cluster.getLeaderIndex());   // a new leader takes over; the client moves on
 * }
 * }</pre>
 *
 * <p>The constructor returns once a leader is elected. {@link #killServer(int)}
 * stops a member as a crash would (no snapshot, streams cut);
 * {@link #restartServer(int)} starts it again on the same ports with the same
 * data, and it catches up from the leader.
 *
 * <p>A fatal error of Raft's (Apache Ratis) inside a member, such as a peer
 * port that another process took, throws in the failing thread (the
 * constructor, or {@code restartServer}, fails) instead of ending your test
 * JVM with {@code System.exit}, which is what a server process does. This
 * holds for the whole JVM from the first cluster on.
 */
public final class TestingCluster implements AutoCloseable {
  /** How long to wait for a leader to be elected. */
  private static final Duration LEADER_WAIT = Duration.ofSeconds(60);
  private static final long DEFAULT_SNAPSHOT_EVERY = 100_000;
  /**
   * Members in one JVM pause together for its GC and JIT: a follower back from a pause finds the
   * leader's heartbeats late. The 1-2 s that the design notes found stable there, instead of the
   * separate-process default.
   */
  private static final Duration ELECTION_TIMEOUT_MIN = Duration.ofMillis(1000);
  private static final Duration ELECTION_TIMEOUT_MAX = Duration.ofMillis(2000);

  private final List<EnsembleMember> members;
  private final List<Path> dataDirs;
  private final Duration tick;
  private final long snapshotEvery;
  private final CorralServer[] servers;
  private boolean closed;

  /** Starts {@code size} members with the default tick (1 s) and election timeouts. */
  public TestingCluster(int size) {
    this(size, TestingServer.DEFAULT_TICK);
  }

  /** Starts {@code size} members with the given session tick; returns once they have a leader. */
  public TestingCluster(int size, Duration tick) {
    this(size, tick, DEFAULT_SNAPSHOT_EVERY);
  }

  /**
   * Starts {@code size} members with the given session tick, each taking a
   * snapshot every {@code snapshotEvery} log entries. Log segments are the
   * Raft log's default, 1 MiB, and purged behind snapshots, so a member that was down while a few MiB
   * were written catches up through a snapshot install.
   */
  public TestingCluster(int size, Duration tick, long snapshotEvery) {
    if (size < 1 || size > 9) {
      throw new IllegalArgumentException("a testing cluster has 1 to 9 members, not " + size);
    }
    this.tick = tick;
    this.snapshotEvery = snapshotEvery;
    RaftReplicator.keepTheJvmOnFatalErrors();
    List<Integer> ports = LoopbackPorts.free(2 * size); // distinct: two members never share a port
    this.members = IntStream.rangeClosed(1, size)
        .mapToObj(i -> new EnsembleMember(String.valueOf(i), "127.0.0.1", ports.get(2 * i - 2), ports.get(2 * i - 1)))
        .toList();
    this.dataDirs = members.stream().map(m -> TestingResources.newTempDir()).toList();
    this.servers = new CorralServer[size];
    try {
      startStopped();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Starts every member that is not running, together, on their ports and
   * data, and returns once they have a leader: after {@link #stop()}, the
   * whole ensemble again. The constructor has started them all already, so
   * calling it then (as Curator's tests call {@code start()}) does nothing.
   */
  public void start() {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("the testing cluster was closed");
      }
    }
    startStopped();
  }

  /** Stops every running member cleanly, keeping their ports and data for {@link #start()}. */
  public void stop() {
    for (int i = 0; i < servers.length; i++) {
      CorralServer server;
      synchronized (this) {
        server = servers[i];
        servers[i] = null;
      }
      if (server != null) {
        server.close();
      }
    }
  }

  private void startStopped() {
    // members start together: each waits for the others to elect a leader
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int i = 0; i < servers.length; i++) {
      if (!isRunning(i)) {
        int index = i;
        starts.add(CompletableFuture.runAsync(() -> startMember(index)));
      }
    }
    CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).join();
    awaitLeader();
  }

  /** Every member's client address, for a client's connect string. */
  public String getConnectString() {
    return members.stream().map(EnsembleMember::clientAddress).collect(Collectors.joining(","));
  }

  /** The client address of member {@code index} alone (0-based). */
  public String getConnectString(int index) {
    return members.get(index).clientAddress();
  }

  /** The number of members. */
  public int size() {
    return members.size();
  }

  /** True while member {@code index} runs. */
  public synchronized boolean isRunning(int index) {
    return servers[index] != null;
  }

  /**
   * The index of the member that leads now, as the running members report it,
   * or -1 while there is none (an election is under way, or a majority is down).
   */
  public synchronized int getLeaderIndex() {
    for (int i = 0; i < servers.length; i++) {
      if (servers[i] != null && status(i).getRole() == Role.LEADER) {
        return i;
      }
    }
    return -1;
  }

  /** Waits (up to a minute) until a running member leads, and returns its index. */
  public int awaitLeader() {
    long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
    while (System.nanoTime() - deadline < 0) {
      int leader = getLeaderIndex();
      if (leader >= 0) {
        return leader;
      }
      sleep(20);
    }
    throw new IllegalStateException("no leader elected within " + LEADER_WAIT + " among " + runningSummary());
  }

  /** Member {@code index}'s admin status: role, term, applied zxid, sessions, nodes, tree digest. */
  public synchronized MemberStatus status(int index) {
    return AdminService.status(running(index).core());
  }

  /** Stops member {@code index} as a crash would: no snapshot, client streams cut, data kept. */
  public synchronized void killServer(int index) {
    CorralServer server = running(index);
    servers[index] = null;
    server.halt();
  }

  /** Starts member {@code index} again on the same ports with the same data (it catches up from the leader). */
  public synchronized void restartServer(int index) {
    if (closed) {
      throw new IllegalStateException("the testing cluster was closed");
    }
    if (servers[index] != null) {
      throw new IllegalStateException("member " + index + " is running; kill it first");
    }
    startMember(index);
  }

  /** Expires a session at once, through any running member: its ephemerals go, its client is told. */
  public void expireSession(long sessionId) {
    CorralServer server;
    synchronized (this) {
      server = IntStream.range(0, servers.length).filter(i -> servers[i] != null).mapToObj(i -> servers[i])
          .findFirst().orElseThrow(() -> new IllegalStateException("no member is running"));
    }
    server.expireSession(sessionId);
  }

  /**
   * The member whose server the session's client is attached to now (as
   * Curator's findConnectionInstance), or empty while it is attached nowhere.
   */
  public synchronized OptionalInt memberAttaching(long sessionId) {
    return IntStream.range(0, servers.length)
        .filter(i -> servers[i] != null && servers[i].core().isAttachedHere(sessionId))
        .findFirst();
  }

  /** The running server of member {@code index}, for tests that need the server itself. */
  public synchronized Optional<CorralServer> server(int index) {
    return Optional.ofNullable(servers[index]);
  }

  /** Stops every member and deletes their data. Closing twice is harmless. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    stop();
    dataDirs.forEach(TestingResources::deleteRecursively);
  }

  private void startMember(int index) {
    EnsembleMember self = members.get(index);
    CorralServer server = CorralServer.start(ServerConfig.builder()
        .ensemble(self.id(), members)
        .dataDir(dataDirs.get(index))
        .tick(tick)
        .snapshotEvery(snapshotEvery)
        .electionTimeout(ELECTION_TIMEOUT_MIN, ELECTION_TIMEOUT_MAX)
        .build());
    synchronized (this) {
      servers[index] = server;
    }
  }

  private CorralServer running(int index) {
    CorralServer server = servers[index];
    if (server == null) {
      throw new IllegalStateException("member " + index + " is not running");
    }
    return server;
  }

  private synchronized String runningSummary() {
    List<String> states = new ArrayList<>();
    for (int i = 0; i < servers.length; i++) {
      states.add(i + ":" + (servers[i] == null ? "down" : status(i).getRole()));
    }
    return states.toString();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a leader", e);
    }
  }
}
