package dev.corral.server.replication;

import static dev.corral.server.replication.DaemonThreads.daemon;

import dev.corral.proto.internal.ForwardBatch;
import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.server.tree.TxnResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import java.util.Collection;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.exceptions.LeaderNotReadyException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.ExitUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Replicator} on Apache Ratis: this server's member of a Raft group
 * (a group of one by default) whose log holds group-committed {@link LogEntry}s
 * and whose state machine drives a {@link ReplicatedState}. Writes are
 * submitted in process to the local Ratis server, so a leader pays no network
 * hop; an entry is acknowledged only after it is fsynced on a majority.
 *
 * <p>Lifecycle: {@link #create} builds it, {@link #start()} starts Ratis, loads
 * the latest snapshot, replays the log after it and (for a group of one) waits
 * until this member leads; {@link #close()} fails proposals still waiting with
 * NOT_READY and stops Ratis. Start once; closing twice is harmless.
 */
public final class RaftReplicator implements Replicator {
  private static final Logger LOG = LoggerFactory.getLogger(RaftReplicator.class);
  /** A snapshot taking longer fails; a clean shutdown then relies on replaying the log at the next start. */
  private static final long SNAPSHOT_TIMEOUT_MS = TimeUnit.SECONDS.toMillis(60);
  private static final long LEADER_NOT_READY_RETRY_MS = 10;
  /** A follower that answers yet gets no entries for this long makes the leader step down. */
  static final Duration FOLLOWER_STALL = Duration.ofSeconds(20);
  private static final long STUCK_CHECK_PERIOD_MS = 250;
  /** How often a follower looks at how long ago it heard from the leader ({@link DeadLeaderWatch}). */
  private static final long LEADER_CHECK_PERIOD_MS = 20;
  private static final long STEP_DOWN_TIMEOUT_MS = 5000;
  /** How often a member looks whether it still has a leader ({@link LeaderlessWatch}). */
  private static final long LEADERLESS_CHECK_PERIOD_MS = 100;

  private enum Lifecycle { NEW, STARTING, RUNNING, CLOSED }

  private final AtomicReference<Lifecycle> lifecycle = new AtomicReference<>(Lifecycle.NEW);
  private final ReplicationConfig config;
  private final RaftGroup group;
  /** The members' ids, in config order. */
  private final List<String> memberIds;
  private final RaftPeerId selfId;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final GroupCommitProposer proposer;
  private final ReplicatedState state;
  private final CorralStateMachine stateMachine;
  private final RaftServer server;
  /** More than one member: writes are forwarded to the leader and heartbeats sent there. */
  private final boolean ensemble;
  /**
   * The leader the link was last pointed at (Ratis repeats the same leader's
   * notice); null until the first notice. A follower submits only when this is
   * the leader it knows ({@link #leaderKnown}).
   */
  private volatile RaftPeerId forwardingTo;
  /**
   * A follower's stream to the leader, carrying its proposer's txns and its
   * heartbeats; null while this member leads or knows no leader. Replaced by a
   * fresh one to the same leader once lost.
   */
  private ForwardingLink link; // guarded by forwardingLock
  /** Guards pointing the link at a leader against a concurrent close. */
  private final Object forwardingLock = new Object();
  private volatile RaftServer.Division division;
  /**
   * Runs the leader's stuck checks (in a group of more than one) and the short
   * retries of a just-elected leader: on our own thread, since an executor-less
   * async call would start a thread per task where the common pool has one
   * worker (2 cores).
   */
  private final ScheduledExecutorService timer;
  private final StalledFollowerWatch followerWatch;
  private final UnreadyLeaderWatch unreadyWatch;
  private final DeadLeaderWatch deadLeaderWatch; // used on the timer thread only
  private final LeaderlessWatch leaderlessWatch; // used on the timer thread only
  private final AtomicLong electionsForDeadLeaders = new AtomicLong();

  private RaftReplicator(ReplicationConfig config, ReplicatedState state) throws IOException {
    this.config = config;
    this.selfId = RaftPeerId.valueOf(config.self());
    this.group = RaftGroup.valueOf(groupId(config.groupName()), peers(config.members()));
    this.memberIds = config.members().stream().map(RaftMember::id).toList();
    this.ensemble = config.members().size() > 1;
    this.state = state;
    this.proposer = new GroupCommitProposer(config, new GroupCommitProposer.EntrySubmitter() {
      @Override
      public GroupCommitProposer.Submission submit(LogEntry entry) {
        return RaftReplicator.this.submit(entry, false);
      }

      @Override
      public GroupCommitProposer.Submission submitToOwnLog(LogEntry entry) {
        return RaftReplicator.this.submit(entry, true);
      }

      @Override
      public boolean canSubmit() {
        return leaderKnown();
      }
    });
    this.stateMachine = new CorralStateMachine(state, proposer, this::leaderChanged, config.clock());
    ForwardingService forwarding = new ForwardingService(config.self(), proposer, state::heardFrom, this::isLeader);
    Parameters parameters = new Parameters();
    GrpcConfigKeys.Server.setServicesCustomizer(parameters, forwarding::customize);
    this.server = RaftServer.newBuilder()
        .setServerId(selfId)
        .setGroup(group)
        .setStateMachine(stateMachine)
        .setProperties(RatisProperties.of(config))
        .setParameters(parameters)
        .setOption(RaftStorage.StartupOption.RECOVER)
        .build();
    this.followerWatch = StalledFollowerWatch.forElectionTimeout(FOLLOWER_STALL, config.electionTimeoutMax());
    // committing a new term's first entry takes one round (milliseconds); two election timeouts, at least 1 s,
    // with no follower moving, is stuck (W6: a leader stuck for 2 s made the first write after a kill 3.6 s)
    this.unreadyWatch = new UnreadyLeaderWatch(ReplicationConfig.twoElectionTimeouts(config.electionTimeoutMax()));
    this.deadLeaderWatch = new DeadLeaderWatch(config.electionTimeoutMin());
    this.leaderlessWatch = new LeaderlessWatch(
        LeaderlessWatch.limitFor(config.electionTimeoutMax(), config.sessionTick()), System.nanoTime());
    this.timer = Executors.newSingleThreadScheduledExecutor(daemon("corral-replicator-timer-" + config.self()));
  }

  /**
   * A new leader: forward to it on a fresh link (none when it is this member).
   * The old link may still hold txns for the old leader; closing it fails
   * them, as outcome unknown, which is what they are (their streams then end,
   * and their clients re-attach before they retry). Nothing is sent again.
   *
   * <p>Ratis records a new leader before it tells the state machine, so for a
   * moment this member knows a leader its link is not yet aimed at;
   * {@link #leaderKnown} therefore waits for this notice. Notices that come
   * while the member starts are taken too, and {@link #start} repeats the
   * latest one, so none is lost.
   */
  private void forwardTo(RaftPeerId leader) {
    if (!ensemble || leader == null) {
      return;
    }
    ForwardingLink old;
    synchronized (forwardingLock) {
      if (leader.equals(forwardingTo) || lifecycle.get() == Lifecycle.CLOSED) {
        return;
      }
      old = link;
      link = selfId.equals(leader) ? null : ForwardingLink.open(member(leader.toString()), proposer);
      forwardingTo = leader;
    }
    if (old != null) {
      old.close("member " + leader + " leads now");
    }
  }

  /** The link to the leader, a fresh one if the last was lost; null while leading or knowing no leader. */
  private ForwardingLink liveLink() {
    synchronized (forwardingLock) {
      if (link != null && link.lost() != null && lifecycle.get() == Lifecycle.RUNNING) {
        link = ForwardingLink.open(link.leader(), proposer);
      }
      return link;
    }
  }

  private RaftMember member(String id) {
    return config.members().stream().filter(m -> m.id().equals(id)).findFirst()
        .orElseThrow(() -> new IllegalStateException("no member " + id + " in the configuration"));
  }

  /** Sends {@code batch} to the leader over the link; the link that took it, or null when none could. */
  private ForwardingLink forward(ForwardBatch batch) {
    ForwardingLink via = liveLink();
    return via != null && via.send(batch) ? via : null;
  }

  private RaftPeerId leaderNow() {
    RaftServer.Division d = division;
    return d == null ? null : d.getInfo().getLeaderId();
  }

  /**
   * Has Ratis's fatal errors in this JVM (a peer port it cannot bind, its
   * state machine updater failing) throw in the failing thread instead of
   * ending the process with {@code System.exit}: for members started inside a
   * test's JVM ({@code TestingCluster}, the server's own tests), where a port
   * taken by another process must fail the test, not end the JVM under every
   * other test. JVM-wide and for good. A server process keeps Ratis's
   * default: a member in that state is better ended and restarted.
   */
  public static void keepTheJvmOnFatalErrors() {
    ExitUtils.disableSystemExit();
  }

  /** A replicator for {@code state}, not yet started. */
  public static RaftReplicator create(ReplicationConfig config, ReplicatedState state) throws IOException {
    return new RaftReplicator(config, state);
  }

  /**
   * Whether {@code dataDir} holds a Raft group's storage (Ratis's
   * {@code <group>/current/raft-meta}), as a single server wrote it before it
   * had a log of its own: such a directory keeps being served by Raft, so that
   * its data is read.
   */
  public static boolean storageIn(Path dataDir) throws IOException {
    if (!Files.isDirectory(dataDir)) {
      return false;
    }
    try (Stream<Path> children = Files.list(dataDir)) {
      return children.anyMatch(child -> Files.isRegularFile(child.resolve("current").resolve("raft-meta")));
    }
  }

  /**
   * Starts this member: loads the latest snapshot, replays the log after it, and,
   * in a group of one, waits (at most the configured start timeout) until this
   * member leads and has applied everything committed. A member of a larger group
   * returns once started; its proposals fail with NOT_READY until it leads.
   */
  public void start() throws IOException, InterruptedException {
    if (!lifecycle.compareAndSet(Lifecycle.NEW, Lifecycle.STARTING)) {
      throw new IllegalStateException("start() called on a replicator that is " + lifecycle.get());
    }
    try {
      startRatis();
      division = server.getDivision(group.getGroupId());
      proposer.start();
      if (config.members().size() == 1) {
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        await(stateMachine.leaderReady(), deadline, "become the leader");
        await(readIndex(), deadline, "apply the committed log");
      }
      if (!lifecycle.compareAndSet(Lifecycle.STARTING, Lifecycle.RUNNING)) {
        throw new IOException("closed while starting");
      }
      forwardTo(leaderNow()); // a notice that came before the division was known here
      if (config.members().size() > 1) {
        every(STUCK_CHECK_PERIOD_MS, "its followers", DivisionInfo::isLeader, this::stepDownIfStuck);
        every(LEADER_CHECK_PERIOD_MS, "its leader", DivisionInfo::isFollower, this::electIfLeaderGone);
        every(LEADERLESS_CHECK_PERIOD_MS, "whether it has a leader", info -> true, this::serveOnlyWithALeader);
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Ratis reports a failed state machine start (e.g. a corrupt snapshot) unchecked. */
  private void startRatis() throws IOException {
    try {
      server.start();
    } catch (CompletionException e) {
      throw new IOException("Raft member " + config.self() + " did not start", e.getCause());
    }
  }

  @Override
  public CompletableFuture<TxnResult> propose(Txn.Builder txn) {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      return CompletableFuture.failedFuture(notRunning());
    }
    return proposer.propose(txn);
  }

  /** A Raft ReadIndex round, then the local apply up to that index. */
  @Override
  public CompletableFuture<Void> sync() {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      return CompletableFuture.failedFuture(notRunning());
    }
    return readIndex();
  }

  @Override
  public boolean isLeader() {
    RaftServer.Division d = runningDivision();
    return d != null && d.getInfo().isLeader();
  }

  /** This member's Raft division while the replicator runs; null before start() finished and once closed. */
  private RaftServer.Division runningDivision() {
    RaftServer.Division d = division;
    return d != null && lifecycle.get() == Lifecycle.RUNNING ? d : null;
  }

  /**
   * Writes a snapshot of every txn applied so far, durably, and purges the log
   * before it; returns once done. When the latest snapshot already holds every
   * txn applied, it is kept and no new one is written (entries Ratis applies of
   * its own, such as the configuration entry a new leader appends, change
   * nothing a snapshot holds).
   *
   * @throws UncheckedIOException when the snapshot could not be written
   */
  @Override
  public void takeSnapshot() {
    if (lifecycle.get() != Lifecycle.RUNNING) {
      throw new IllegalStateException("takeSnapshot() on a replicator that is " + lifecycle.get());
    }
    long target = stateMachine.lastStateIndex();
    stateMachine.writeNextSnapshotNow(true);
    try {
      RaftClientReply reply = server.snapshotManagement(SnapshotManagementRequest.newCreate(
          clientId, selfId, group.getGroupId(), callIds.incrementAndGet(), SNAPSHOT_TIMEOUT_MS, 1));
      if (!reply.isSuccess()) {
        throw new IOException("snapshot failed", reply.getException());
      }
      if (reply.getLogIndex() < target) {
        throw new IOException("no snapshot at index " + target + " (latest " + reply.getLogIndex() + ")",
            stateMachine.lastSnapshotFailure());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      stateMachine.writeNextSnapshotNow(false); // Ratis found nothing new to snapshot and did not ask
    }
  }

  @Override
  public void close() {
    Lifecycle previous = lifecycle.getAndSet(Lifecycle.CLOSED);
    if (previous == Lifecycle.CLOSED) {
      return;
    }
    proposer.close();
    timer.shutdownNow();
    ForwardingLink last;
    synchronized (forwardingLock) { // no forwardTo opens a link after this
      last = link;
      link = null;
    }
    if (last != null) {
      last.close("the replicator is closed");
    }
    try {
      server.close();
    } catch (IOException e) {
      LOG.warn("closing the Raft server failed", e);
    }
    try {
      stateMachine.close(); // already closed by Ratis unless the server never started
    } catch (IOException e) {
      LOG.warn("closing the state machine failed", e);
    }
  }

  /**
   * Puts an entry into the log: in process on the leader; on a follower, its
   * txns go to the leader over the link, unless they were forwarded here
   * ({@code ownLogOnly}: refused with NOT_READY). Any failure after an entry
   * went out leaves the outcome unknown (the entry may commit after all), which
   * the proposer reports as such.
   */
  private GroupCommitProposer.Submission submit(LogEntry entry, boolean ownLogOnly) {
    if (ensemble && !ownLogOnly && !division.getInfo().isLeader()) {
      ForwardingLink via = forward(ForwardBatch.newBuilder().addAllTxns(entry.getTxnsList()).build());
      if (via == null) {
        return new GroupCommitProposer.Submission(CompletableFuture.failedFuture(noLeader()), () -> { });
      }
      // handed over: the leader logs the txns, or tells of those it gives up on, or the link is lost
      return new GroupCommitProposer.Submission(CompletableFuture.completedFuture(null), () -> { }, via);
    }
    // where this member does not lead, the attempt refuses the entry (forwarded txns are never sent on)
    EntrySend send = new EntrySend(Message.valueOf(entry.toByteString().asReadOnlyByteBuffer()));
    send.attempt();
    return new GroupCommitProposer.Submission(send.answer, send::abandon);
  }

  /**
   * One entry on its way into this member's log, given to its division; again
   * shortly while it is just elected and not ready, since Ratis then took
   * nothing. Once abandoned, or when this member no longer leads, it is not
   * given again.
   */
  private final class EntrySend {
    private final Message message;
    private final CompletableFuture<RaftClientReply> answer = new CompletableFuture<>();
    private boolean abandoned; // guarded by this

    EntrySend(Message message) {
      this.message = message;
    }

    void attempt() {
      CompletableFuture<RaftClientReply> sent;
      synchronized (this) { // so that abandon() cannot slip between the check and the send
        if (abandoned) {
          return;
        }
        if (ensemble && !division.getInfo().isLeader()) {
          answer.completeExceptionally(notLeading()); // Ratis took nothing yet: it never enters the log
          return;
        }
        sent = send(newRequest(RaftClientRequest.writeRequestType(), message));
      }
      sent.whenComplete(this::answeredHere);
    }

    private void answeredHere(RaftClientReply reply, Throwable failure) {
      if (!isLeaderNotReady(failure)) {
        complete(reply, failure);
        return;
      }
      try {
        timer.schedule(this::attempt, LEADER_NOT_READY_RETRY_MS, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        complete(null, failure);
      }
    }

    private void complete(RaftClientReply reply, Throwable failure) {
      if (failure == null) {
        answer.complete(reply);
      } else {
        answer.completeExceptionally(failure);
      }
    }

    void abandon() {
      synchronized (this) {
        abandoned = true;
      }
      answer.completeExceptionally(new IOException("the entry was given up on"));
    }
  }

  private static boolean isLeaderNotReady(Throwable failure) {
    return ReplicationException.unwrap(failure) instanceof LeaderNotReadyException;
  }


  /**
   * True when this member leads and is ready (it committed an entry of its
   * term), or knows a leader, its link is aimed at it (see {@link #forwardTo})
   * and connected; always once a group of one started.
   *
   * <p>Until the link connects, the proposer keeps the txns: handed to a link
   * still connecting, they would wait in it, and if its leader is gone (a
   * follower learns of that only with the next leader) they would be lost with
   * it as outcome unknown, though they never left this member; each of their
   * sessions then ended its stream and re-attached before it retried (W6, after
   * a kill -9 of the leader: writes through the followers failed so 0.4-0.6 s
   * after the kill, when the next leader was known). Held back, they go to the
   * next leader as soon as its link connects.
   */
  private boolean leaderKnown() {
    RaftServer.Division d = division;
    if (!ensemble) {
      return true;
    }
    if (d == null) {
      return false;
    }
    if (d.getInfo().isLeader()) {
      return d.getInfo().isLeaderReady();
    }
    RaftPeerId leader = d.getInfo().getLeaderId();
    if (leader == null || !leader.equals(forwardingTo)) {
      return false;
    }
    ForwardingLink via = liveLink();
    return via != null && via.connected();
  }

  @Override
  public CompletableFuture<Void> forwardHeartbeats(Collection<Long> sessionIds) {
    if (!ensemble || lifecycle.get() != Lifecycle.RUNNING || sessionIds.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return forward(ForwardBatch.newBuilder().addAllHeartbeatSessionIds(sessionIds).build()) != null
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(noLeader());
  }

  @Override
  public GroupView view() {
    RaftServer.Division d = runningDivision();
    if (d == null) {
      return new GroupView(config.self(), GroupView.Role.UNKNOWN, 0, "", memberIds);
    }
    RaftPeerId leader = d.getInfo().getLeaderId();
    GroupView.Role role = switch (d.getInfo().getCurrentRole()) {
      case LEADER -> GroupView.Role.LEADER;
      case FOLLOWER -> GroupView.Role.FOLLOWER;
      case CANDIDATE -> GroupView.Role.CANDIDATE;
      default -> GroupView.Role.UNKNOWN;
    };
    return new GroupView(config.self(), role, d.getInfo().getCurrentTerm(),
        leader == null ? "" : leader.toString(), memberIds);
  }

  /**
   * On the leader: steps down when it cannot commit the first entry of its
   * term ({@link UnreadyLeaderWatch}) or a follower that answers has been left
   * behind ({@link StalledFollowerWatch}), both from a Ratis bug; the next
   * leader, maybe this member again, starts its appenders afresh.
   */
  private void stepDownIfStuck(RaftServer.Division d) {
    long term = d.getInfo().getCurrentTerm();
    long[] matchIndices = d.getInfo().getFollowerMatchIndices();
    if (matchIndices == null) {
      return; // just elected: Ratis has no leader state to read yet
    }
    if (unreadyWatch.stuck(term, d.getInfo().isLeaderReady(), LongStream.of(matchIndices).sum(), System.nanoTime())) {
      LOG.warn("Member {} has led term {} without committing an entry of it; it steps down so that a new"
          + " election starts the appenders afresh (Ratis RATIS-2605)", config.self(), term);
      stepDown();
      return;
    }
    List<RaftProtos.ServerRpcProto> rpcs = d.getInfo().getRoleInfoProto().getLeaderInfo().getFollowerInfoList();
    if (rpcs.size() != matchIndices.length) {
      return; // the followers changed between the two calls: look again next time
    }
    List<StalledFollowerWatch.Follower> followers = new ArrayList<>();
    for (int i = 0; i < rpcs.size(); i++) {
      followers.add(new StalledFollowerWatch.Follower(rpcs.get(i).getId().getId().toStringUtf8(), matchIndices[i],
          rpcs.get(i).getLastRpcElapsedTimeMs()));
    }
    long commitIndex = d.getRaftLog().getLastCommittedIndex();
    followerWatch.check(term, commitIndex, followers, System.nanoTime())
        .ifPresent(stalled -> {
          LOG.warn("Member {} answers but has stayed at log index {} for {} s while the commit index is {};"
                  + " member {} steps down so that a new leader brings it up to date (Ratis RATIS-2605)",
              stalled.id(), stalled.matchIndex(), FOLLOWER_STALL.toSeconds(), commitIndex, config.self());
          stepDown();
        });
  }

  /**
   * Stops serving sessions while this member has had no leader for a while,
   * and serves them again once it has one ({@link LeaderlessWatch}).
   */
  private void serveOnlyWithALeader(RaftServer.Division d) {
    long now = System.nanoTime();
    switch (leaderlessWatch.check(leaderHeard(d.getInfo()), now)) {
      case LEADERLESS -> state.leaderUnreachable("member " + config.self() + " has heard from no leader for "
          + leaderlessWatch.silence(now).toMillis() + " ms: a majority of the ensemble is unreachable from it"
          + " or cannot elect one; try another member");
      case SERVING_AGAIN -> state.leaderReachable();
      case SERVING, WAITING -> { }
    }
  }

  /** This member leads (Ratis steps a leader down once the majority stops answering), or hears from its leader. */
  private boolean leaderHeard(DivisionInfo info) {
    if (info.isLeader()) {
      return true;
    }
    if (!info.isFollower() || info.getLeaderId() == null) {
      return false;
    }
    OptionalLong silentMs = leaderSilenceMs(info);
    return silentMs.isEmpty() || silentMs.getAsLong() < leaderlessWatch.limit().toMillis();
  }

  /** How long ago this follower last heard from its leader; empty if it knows none, or has no record of it yet. */
  private static OptionalLong leaderSilenceMs(DivisionInfo info) {
    RaftProtos.FollowerInfoProto follower = info.getRoleInfoProto().getFollowerInfo();
    if (info.getLeaderId() == null || !follower.hasLeaderInfo()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(follower.getLeaderInfo().getLastRpcElapsedTimeMs());
  }

  /**
   * On a follower: starts an election now when the leader has been silent for
   * a while and its peer port refuses connections (its process is gone), see
   * {@link DeadLeaderWatch}. The election is started the way a leader hands
   * over leadership (Ratis's StartLeaderElection, asked of this member in
   * process): this member becomes a candidate at once, in a new term. Raft's
   * vote still decides; only the wait for the timeout is skipped.
   */
  private void electIfLeaderGone(RaftServer.Division d) throws IOException {
    RaftPeerId leader = d.getInfo().getLeaderId();
    OptionalLong silence = leaderSilenceMs(d.getInfo());
    if (leader == null || silence.isEmpty()) {
      return;
    }
    long silentMs = silence.getAsLong();
    int rank = DeadLeaderWatch.rank(memberIds, leader.toString(), config.self());
    if (!deadLeaderWatch.due(silentMs, rank, System.nanoTime())) {
      return;
    }
    RaftMember leaderMember = config.members().stream()
        .filter(m -> m.id().equals(leader.toString())).findFirst().orElse(null);
    if (leaderMember == null
        || !DeadLeaderWatch.refusesConnections(new InetSocketAddress(leaderMember.host(), leaderMember.port()))) {
      return;
    }
    long term = d.getInfo().getCurrentTerm();
    LOG.info("Member {} has not heard from leader {} for {} ms and its peer port {} refuses connections:"
        + " it starts an election now (term {})", config.self(), leader, silentMs, leaderMember.address(), term);
    RaftProtos.StartLeaderElectionReplyProto reply = server.startLeaderElection(
        RaftProtos.StartLeaderElectionRequestProto.newBuilder()
            .setServerRequest(RaftProtos.RaftRpcRequestProto.newBuilder()
                .setRequestorId(leader.toByteString())
                .setReplyId(selfId.toByteString())
                .setRaftGroupId(RaftProtos.RaftGroupIdProto.newBuilder().setId(group.getGroupId().toByteString()))
                .setCallId(callIds.incrementAndGet()))
            .setLeaderLastEntry(d.getRaftLog().getLastEntryTermIndex().toProto())
            .build());
    if (reply.getServerReply().getSuccess()) {
      electionsForDeadLeaders.incrementAndGet();
    } else {
      LOG.info("Member {} could not start an election now (its log or term moved on); the timeout will",
          config.self());
    }
  }

  /** A check of this member's division, run on the timer. */
  @FunctionalInterface
  private interface DivisionCheck {
    void run(RaftServer.Division division) throws IOException;
  }

  /**
   * Runs {@code check} on the timer every {@code periodMs} while this member
   * runs in the role {@code inRole} accepts. A failed check is logged and the
   * next one still runs (a scheduled task that throws is never run again).
   */
  private void every(long periodMs, String what, Predicate<DivisionInfo> inRole, DivisionCheck check) {
    timer.scheduleWithFixedDelay(() -> {
      try {
        RaftServer.Division d = runningDivision();
        if (d != null && inRole.test(d.getInfo())) {
          check.run(d);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("Member {} could not check on {}", config.self(), what, e);
      }
    }, periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  /** How many elections this member started because its leader's process was gone (for tests). */
  long electionsForDeadLeaders() {
    return electionsForDeadLeaders.get();
  }

  private void stepDown() {
    try {
      server.transferLeadershipAsync(new TransferLeadershipRequest(clientId, selfId, group.getGroupId(),
              callIds.incrementAndGet(), null, STEP_DOWN_TIMEOUT_MS))
          .whenComplete((reply, failure) -> {
            if (failure != null || !reply.isSuccess()) {
              LOG.warn("Member {} could not step down: {}", config.self(),
                  failure != null ? failure.toString() : reply.getException());
            }
          });
    } catch (IOException e) {
      LOG.warn("Member {} could not step down", config.self(), e);
    }
  }

  /** Called by the state machine whenever this member learns of a new leader. */
  private void leaderChanged(RaftPeerId leader) {
    RaftServer.Division d = division;
    long term = d == null ? -1 : d.getInfo().getCurrentTerm();
    boolean self = selfId.equals(leader);
    if (config.members().size() > 1) {
      LOG.info("Member {} is now {} in term {} (leader: {})", config.self(), self ? "LEADER" : "FOLLOWER", term,
          leader == null ? "none" : leader);
    }
    forwardTo(leader);
    state.leaderChanged(self);
  }

  private static RaftClientReply successful(RaftClientReply reply) {
    if (!reply.isSuccess()) {
      throw new CompletionException(reply.getException());
    }
    return reply;
  }

  private ReplicationException notLeading() {
    return GroupCommitProposer.notReady("member " + config.self() + " no longer leads; the txns were not logged", null);
  }

  private ReplicationException noLeader() {
    return GroupCommitProposer.notReady("member " + config.self()
        + " knows no leader: an election is under way or a majority of the ensemble is unreachable", null);
  }

  /** A ReadIndex round (asked of the leader on a follower), then the local apply up to that index. */
  private CompletableFuture<Void> readIndex() {
    return send(newRequest(RaftClientRequest.readRequestType(), Message.EMPTY)).handle((reply, failure) -> {
      if (failure != null) {
        Throwable cause = ReplicationException.unwrap(failure);
        throw GroupCommitProposer.notReady("member " + config.self() + " could not sync with the leader: " + cause,
            cause);
      }
      return null;
    });
  }

  private RaftClientRequest newRequest(RaftClientRequest.Type type, Message message) {
    return RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(selfId)
        .setGroupId(group.getGroupId())
        .setCallId(callIds.incrementAndGet())
        .setMessage(message)
        .setType(type)
        .build();
  }

  /**
   * Submits in process; fails with Ratis's exception when it refuses or gives up.
   * Straight to this member's division where it takes requests itself (Ratis's
   * RaftServerImpl does): the server-level call hands each request to Ratis's
   * client executor and blocks until that thread has appended it, two thread
   * switches per entry for nothing, since the caller waits anyway. Whatever
   * the division throws comes back as a failed future, as it did through the
   * server-level call.
   */
  private CompletableFuture<RaftClientReply> send(RaftClientRequest request) {
    RaftClientAsynchronousProtocol target = division instanceof RaftClientAsynchronousProtocol direct ? direct : server;
    try {
      return target.submitClientRequestAsync(request).thenApply(RaftReplicator::successful);
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private ReplicationException notRunning() {
    return GroupCommitProposer.notReady("the replicator is " + lifecycle.get(), null);
  }

  private void await(CompletableFuture<?> future, long deadlineNanos, String what)
      throws IOException, InterruptedException {
    try {
      future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new IOException("member " + config.self() + " did not " + what + " within " + config.startTimeout(), e);
    } catch (ExecutionException e) {
      throw new IOException("member " + config.self() + " could not " + what, e.getCause());
    }
  }

  private static RaftGroupId groupId(String name) {
    return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)));
  }

  private static List<RaftPeer> peers(List<RaftMember> members) {
    return members.stream()
        .map(m -> RaftPeer.newBuilder().setId(m.id()).setAddress(m.address()).build())
        .toList();
  }
}
