package dev.corral.server;

import com.google.protobuf.ByteString;
import dev.corral.client.Paths;
import dev.corral.client.SequentialNames;
import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.internal.ExpireNode;
import dev.corral.proto.internal.LogEntry;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.Stat;
import dev.corral.proto.v1.WatchEvent;
import dev.corral.server.replication.ReplicatedState;
import dev.corral.server.replication.Replicator;
import dev.corral.server.session.SessionSink;
import dev.corral.server.session.SessionTracker;
import dev.corral.server.tree.DataTree;
import dev.corral.server.tree.SessionRecord;
import dev.corral.server.tree.TreeRules;
import dev.corral.server.tree.TreeSnapshot;
import dev.corral.server.tree.TxnResult;
import dev.corral.server.tree.Zxid;
import dev.corral.server.watch.RecentChanges;
import dev.corral.server.watch.WatchKind;
import dev.corral.server.watch.WatchManager;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's state: the data tree, the watches and the sessions attached
 * here, kept consistent under one read/write lock. Applies run under the write
 * lock and dispatch their watch events there; reads (and the watches they
 * leave) run under the read lock, so a read and its watch are never split by a
 * change, and an event always reaches a session before a read that shows it.
 */
public final class ServerCore implements ReplicatedState {
  private static final Logger log = LoggerFactory.getLogger(ServerCore.class);
  /** Change events kept for sessions that come back (about 100 bytes each). */
  static final int RECENT_CHANGES_KEPT = 50_000;

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final WatchManager watches = new WatchManager();
  private final SessionTracker tracker;
  private final Clock clock;
  private final Map<Long, SessionSink> attached = new ConcurrentHashMap<>();
  private final Set<String> ttlExpiriesInFlight = ConcurrentHashMap.newKeySet();
  private final Set<Long> heardSinceLastForward = ConcurrentHashMap.newKeySet();
  /** True from the moment this member, as leader, gave every session a fresh timeout until it stops leading. */
  private volatile boolean trackerRefreshedAsLeader;
  private final RecentChanges recentChanges = new RecentChanges(RECENT_CHANGES_KEPT, 0);
  private DataTree tree = new DataTree();
  private volatile int snapshotsLoaded; // written under the write lock
  private volatile Replicator replicator;
  private volatile String failure;
  private volatile String leaderless; // why, while this member has no leader it hears from
  private volatile java.util.function.Consumer<String> onFailure = why -> { };

  public ServerCore(Clock clock, SessionTracker tracker) {
    this.clock = clock;
    this.tracker = tracker;
  }

  /** Connects the core to its log; must be called before the log replays. */
  void useReplicator(Replicator replicator) {
    this.replicator = replicator;
  }

  public Replicator replicator() {
    return replicator;
  }

  // ---------------------------------------------------------------- applies

  @Override
  public void apply(long logIndex, LogEntry entry, AppliedTxnListener listener) {
    lock.writeLock().lock();
    try {
      List<Txn> txns = entry.getTxnsList();
      TreeRules rules = TreeRules.of(entry.getRules());
      for (int i = 0; i < txns.size(); i++) {
        Txn txn = txns.get(i);
        TxnResult result = tree.apply(Zxid.of(logIndex, i), entry.getTimeMs(), rules, txn);
        afterApply(txn, result);
        listener.applied(txn, result);
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private void afterApply(Txn txn, TxnResult result) {
    boolean ok = !result.response().hasError();
    switch (txn.getKindCase()) {
      case OPEN_SESSION -> {
        if (ok) {
          tracker.add(result.response().getZxid(), txn.getOpenSession().getTimeoutMs());
        }
      }
      case ATTACH_SESSION -> {
        if (ok) {
          endMovedStream(txn.getSessionId(), txn.getAttachSession().getAttachment());
        }
      }
      case EXPIRE_NODE -> ttlExpiriesInFlight.remove(txn.getExpireNode().getPath());
      case CLOSE_SESSION -> { } // ended below, once the change's events are out
      default -> { }
    }
    for (WatchEvent event : result.events()) {
      recentChanges.add(event);
      deliver(event);
    }
    if (watches.any(WatchKind.FIRST)) {
      fireTurns(result.events());
    }
    if (ok && txn.getKindCase() == Txn.KindCase.CLOSE_SESSION) {
      // after its events: the closing session's own watches hear its ephemeral nodes go, as ZooKeeper's do
      endSession(txn.getSessionId(), txn.getCloseSession().getReason());
    }
  }

  private void deliver(WatchEvent event) {
    for (long sessionId : watches.trigger(event)) {
      SessionSink sink = attached.get(sessionId);
      if (sink != null) {
        sink.event(event);
      }
    }
  }

  /**
   * FIRST watches: a sequential node deleted under a parent whose children
   * sessions here wait on may leave a watched node first in sequence; it
   * hears NODE_FIRST, at the deletion's zxid. Not kept in the recent changes:
   * a re-attached session's FIRST watches are checked against the tree.
   */
  private void fireTurns(List<WatchEvent> events) {
    Map<String, Long> parents = new LinkedHashMap<>();
    for (WatchEvent event : events) {
      String path = event.getPath();
      if (event.getType() == EventType.NODE_DELETED && SequentialNames.sequenceOf(Paths.name(path)) >= 0) {
        String parent = Paths.parent(path);
        if (watches.firstWatchesOnChildrenOf(parent)) {
          parents.put(parent, event.getZxid());
        }
      }
    }
    parents.forEach((parent, zxid) -> tree.firstInSequence(parent)
        .ifPresent(first -> deliver(event(EventType.NODE_FIRST, first, zxid))));
  }

  /**
   * Leaves a FIRST watch on {@code path} for the session, unless the node's
   * turn has come already (NODE_FIRST) or it is gone (NODE_DELETED): then that
   * event is returned, to be sent at once, and no watch is left. The caller
   * holds the read lock.
   */
  public Optional<WatchEvent> watchTurn(long sessionId, String path) {
    long zxid = tree.lastZxid();
    if (tree.stat(path).isEmpty()) {
      return Optional.of(event(EventType.NODE_DELETED, path, zxid));
    }
    if (tree.firstInSequence(Paths.parent(path)).filter(path::equals).isPresent()) {
      return Optional.of(event(EventType.NODE_FIRST, path, zxid));
    }
    watches.add(sessionId, WatchKind.FIRST, path);
    return Optional.empty();
  }

  /**
   * The session re-attached through the stream with {@code token}: a stream of
   * it here with another token is stale (its client went elsewhere), and what
   * it sends from now on would be refused.
   */
  private void endMovedStream(long sessionId, long token) {
    SessionSink sink = attached.get(sessionId);
    if (sink != null && sink.attachment() != token && attached.remove(sessionId, sink)) {
      watches.removeSession(sessionId);
      sink.moved();
    }
  }

  private void endSession(long sessionId, CloseSession.Reason reason) {
    tracker.remove(sessionId);
    watches.removeSession(sessionId);
    SessionSink sink = attached.remove(sessionId);
    log.info("Session 0x{} {}", Long.toHexString(sessionId),
        reason == CloseSession.Reason.EXPIRED ? "expired" : "closed by its client");
    if (sink != null) {
      sink.sessionClosed(reason);
    }
  }

  @Override
  public TreeSnapshot snapshot() {
    lock.readLock().lock();
    try {
      return tree.snapshot().withHistory(recentChanges.history());
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void restore(DataTree restored) {
    lock.writeLock().lock();
    try {
      snapshotsLoaded++;
      this.tree = restored;
      recentChanges.restore(restored.takeLoadedHistory());
      for (SessionRecord s : restored.sessions()) {
        tracker.add(s.sessionId(), s.timeoutMs());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public void failed(Throwable cause) {
    String why = "this server stopped applying the log: " + cause;
    if (failure != null) {
      return;
    }
    failure = why;
    log.error("Server failed; ending {} session streams: {}", attached.size(), why);
    for (SessionSink sink : List.copyOf(attached.values())) {
      sink.serverStopped(why);
    }
    onFailure.accept(why);
  }

  /** Why this server stopped serving, if it did. */
  public Optional<String> failure() {
    return Optional.ofNullable(failure);
  }

  /** Why this server serves no session now, if it does not: it failed, or it has no leader it hears from. */
  public Optional<String> notServing() {
    String why = failure;
    return Optional.ofNullable(why != null ? why : leaderless);
  }

  /**
   * Ends every attached stream with NOT_READY, and {@link #notServing} refuses
   * new ones, until {@link #leaderReachable}: cut off from the majority, this
   * member would keep answering its clients (their pings too) while the majority
   * expires their sessions, and a lock holder or leader connected here would
   * never hear that it lost them. Its clients go SUSPENDED and move to a member
   * that has a leader, as ZooKeeper's do when their server loses its quorum.
   */
  @Override
  public void leaderUnreachable(String why) {
    if (leaderless == null) {
      log.warn("Not serving sessions: {}", why);
    }
    leaderless = why;
    List<SessionSink> sinks = List.copyOf(attached.values());
    if (!sinks.isEmpty()) {
      log.warn("Ending {} session streams: {}", sinks.size(), why);
      sinks.forEach(sink -> sink.serverStopped(why));
    }
  }

  @Override
  public void leaderReachable() {
    if (leaderless != null) {
      log.info("Serving sessions again: a leader is heard from");
      leaderless = null;
    }
  }

  /** Runs {@code action} (once) if the server stops serving. */
  void onFailure(java.util.function.Consumer<String> action) {
    this.onFailure = action;
  }

  @Override
  public long lastZxid() {
    return readLocked(tree::lastZxid);
  }

  // ------------------------------------------------------------------ reads

  /** Runs {@code action} under the read lock (re-entrant for the apply thread). */
  public <T> T readLocked(Supplier<T> action) {
    lock.readLock().lock();
    try {
      return action.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Answers exists / get_data / get_children (alone, or a multi of them only), get_ephemerals and
   * get_all_children_number, and leaves the requested watch.
   * The caller holds the read lock.
   */
  public Response read(long sessionId, Request request) {
    Response response = tree.read(sessionId, request);
    if (response.hasError()) {
      return response;
    }
    switch (request.getOpCase()) {
      case EXISTS -> {
        if (request.getExists().getWatch()) {
          WatchKind kind = response.getExists().hasStat() ? WatchKind.DATA : WatchKind.EXIST;
          watches.add(sessionId, kind, request.getExists().getPath());
        }
      }
      case GET_DATA -> {
        if (request.getGetData().getWatch()) {
          watches.add(sessionId, WatchKind.DATA, request.getGetData().getPath());
        }
      }
      case GET_CHILDREN -> {
        if (request.getGetChildren().getWatch()) {
          watches.add(sessionId, WatchKind.CHILD, request.getGetChildren().getPath());
        }
      }
      default -> { }
    }
    return response;
  }

  /** The zxid applied so far; the caller holds the read lock. */
  public long appliedZxid() {
    return tree.lastZxid();
  }

  public WatchManager watches() {
    return watches;
  }

  /**
   * Re-registers a re-attached session's watches and returns the events it
   * missed since {@code relative_zxid}, to be sent at once. When the recent
   * history reaches back that far, these are exactly the events its watches
   * would have fired (one-shot watches that fire are consumed); otherwise each
   * watch is compared with the node's current state. The caller holds the
   * read lock.
   */
  public List<WatchEvent> setWatches(long sessionId, SetWatchesRequest request) {
    long since = request.getRelativeZxid();
    if (!recentChanges.covers(since)) {
      return setWatchesFromState(sessionId, request);
    }
    request.getDataWatchesList().forEach(path -> watches.add(sessionId, WatchKind.DATA, path));
    request.getExistWatchesList().forEach(path -> watches.add(sessionId, WatchKind.EXIST, path));
    request.getChildWatchesList().forEach(path -> watches.add(sessionId, WatchKind.CHILD, path));
    request.getPersistentWatchesList().forEach(path -> watches.add(sessionId, WatchKind.PERSISTENT, path));
    request.getPersistentRecursiveWatchesList()
        .forEach(path -> watches.add(sessionId, WatchKind.PERSISTENT_RECURSIVE, path));
    List<WatchEvent> missed = new java.util.ArrayList<>();
    for (WatchEvent event : recentChanges.after(since)) {
      if (watches.triggerFor(sessionId, event)) {
        missed.add(event);
      }
    }
    request.getFirstWatchesList().forEach(path -> watchTurn(sessionId, path).ifPresent(missed::add));
    return missed;
  }

  /**
   * The fallback of {@link #setWatches} when the history is too short: one-shot
   * watches compare the node's zxids with {@code since}; persistent watches are
   * re-added and report creations and data changes found in the tree (a
   * deletion that old is no longer known). Each change is told once, in zxid order.
   */
  private List<WatchEvent> setWatchesFromState(long sessionId, SetWatchesRequest request) {
    long since = request.getRelativeZxid();
    long zxid = tree.lastZxid();
    java.util.ArrayList<WatchEvent> missed = new java.util.ArrayList<>();
    for (String path : request.getDataWatchesList()) {
      Optional<Stat> stat = tree.stat(path);
      if (stat.isEmpty()) {
        missed.add(event(EventType.NODE_DELETED, path, zxid));
      } else if (stat.get().getMzxid() > since) {
        missed.add(event(EventType.NODE_DATA_CHANGED, path, stat.get().getMzxid()));
      } else {
        watches.add(sessionId, WatchKind.DATA, path);
      }
    }
    for (String path : request.getExistWatchesList()) {
      Optional<Stat> stat = tree.stat(path);
      if (stat.isPresent()) {
        missed.add(event(EventType.NODE_CREATED, path, stat.get().getCzxid()));
      } else {
        watches.add(sessionId, WatchKind.EXIST, path);
      }
    }
    for (String path : request.getChildWatchesList()) {
      Optional<Stat> stat = tree.stat(path);
      if (stat.isEmpty()) {
        missed.add(event(EventType.NODE_DELETED, path, zxid));
      } else if (stat.get().getPzxid() > since) {
        missed.add(event(EventType.NODE_CHILDREN_CHANGED, path, stat.get().getPzxid()));
      } else {
        watches.add(sessionId, WatchKind.CHILD, path);
      }
    }
    for (String path : request.getPersistentWatchesList()) {
      watches.add(sessionId, WatchKind.PERSISTENT, path);
      tree.stat(path).ifPresent(stat -> changedSince(path, stat, since, missed));
    }
    for (String path : request.getPersistentRecursiveWatchesList()) {
      watches.add(sessionId, WatchKind.PERSISTENT_RECURSIVE, path);
      changedUnder(sessionId, path, since, missed);
    }
    request.getFirstWatchesList().forEach(path -> watchTurn(sessionId, path).ifPresent(missed::add));
    // several watches of the session on one path (or on its ancestors) found the same change: told once, in order
    return missed.stream().distinct().sorted(Comparator.comparingLong(WatchEvent::getZxid)).toList();
  }

  private static void changedSince(String path, Stat stat, long since, List<WatchEvent> missed) {
    if (stat.getCzxid() > since) {
      missed.add(event(EventType.NODE_CREATED, path, stat.getCzxid()));
    } else if (stat.getMzxid() > since) {
      missed.add(event(EventType.NODE_DATA_CHANGED, path, stat.getMzxid()));
    }
  }

  private void changedUnder(long sessionId, String path, long since, List<WatchEvent> missed) {
    Optional<Stat> stat = tree.stat(path);
    if (stat.isEmpty()) {
      return;
    }
    changedSince(path, stat.get(), since, missed);
    if (stat.get().getPzxid() <= since && stat.get().getCzxid() <= since && stat.get().getNumChildren() == 0) {
      return;
    }
    Response children = tree.read(sessionId, Request.newBuilder()
        .setGetChildren(dev.corral.proto.v1.GetChildrenRequest.newBuilder().setPath(path)).build());
    for (String child : children.getGetChildren().getChildrenList()) {
      changedUnder(sessionId, path.equals("/") ? "/" + child : path + "/" + child, since, missed);
    }
  }

  private static WatchEvent event(EventType type, String path, long zxid) {
    return WatchEvent.newBuilder().setType(type).setPath(path).setZxid(zxid).build();
  }

  // --------------------------------------------------------------- sessions

  /** Records that a session's client was heard from (and, on a follower, tells the leader at the next tick). */
  public void touch(long sessionId) {
    tracker.touch(sessionId);
    heardSinceLastForward.add(sessionId);
  }

  @Override
  public void heardFrom(List<Long> sessionIds) {
    sessionIds.forEach(tracker::touch);
  }

  /**
   * A member that just became leader must give every session a fresh timeout
   * before it expires any: Ratis reports it leader (isLeader) a moment before
   * telling us, and the sessions' last heartbeats went to the old leader.
   */
  @Override
  public void leaderChanged(boolean thisMemberLeads) {
    if (thisMemberLeads) {
      tracker.refreshAll();
    }
    trackerRefreshedAsLeader = thisMemberLeads;
  }

  /**
   * On a follower: sends the leader the sessions heard from here since the last
   * batch (kept for the next batch if the leader cannot be reached).
   */
  void forwardHeartbeats() {
    Replicator r = replicator;
    if (r == null || heardSinceLastForward.isEmpty()) {
      return;
    }
    List<Long> batch = new java.util.ArrayList<>(heardSinceLastForward);
    batch.forEach(heardSinceLastForward::remove);
    if (r.isLeader()) {
      return; // heard here: the tracker here is the leader's
    }
    r.forwardHeartbeats(batch).whenComplete((ok, failure) -> {
      if (failure != null) {
        heardSinceLastForward.addAll(batch);
        log.debug("Could not forward {} session heartbeats to the leader: {}", batch.size(), failure.toString());
      }
    });
  }

  /**
   * Attaches an existing session to {@code sink}, replacing any earlier
   * stream (which is told it moved). Refused when this server is behind the
   * client (first: a server that has not applied what the client saw may not
   * have applied the session's creation either, and must not call it gone, as
   * a member restarted and catching up would), the session is gone, or the
   * password is wrong. The stream then proposes the attach through the log,
   * ahead of anything it sends, so that what the session's earlier streams
   * sent is refused once it is applied.
   */
  public AttachOutcome attach(long sessionId, ByteString password, long lastZxidSeen, SessionSink sink) {
    lock.readLock().lock();
    try {
      Optional<AttachOutcome> behind = refuseIfBehind(lastZxidSeen);
      if (behind.isPresent()) {
        return behind.get();
      }
      Optional<SessionRecord> session = tree.session(sessionId);
      if (session.isEmpty() || tracker.isClosing(sessionId)) {
        return AttachOutcome.refused(ErrorCode.SESSION_EXPIRED,
            "session 0x" + Long.toHexString(sessionId) + " has expired or was closed");
      }
      if (!MessageDigest.isEqual(session.get().password().toByteArray(), password.toByteArray())) {
        return AttachOutcome.refused(ErrorCode.SESSION_EXPIRED,
            "wrong password for session 0x" + Long.toHexString(sessionId));
      }
      attachSink(sessionId, sink);
      return AttachOutcome.attached(connected(session.get(), true), session.get().attachment());
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Attaches a session just opened by {@code sink}'s own proposal (on the apply thread). */
  public Connected attachNew(long sessionId, SessionSink sink) {
    lock.readLock().lock();
    try {
      SessionRecord session = tree.session(sessionId).orElseThrow();
      attachSink(sessionId, sink);
      return connected(session, false);
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Refuses a client that has seen a later zxid than this server applied. */
  public Optional<AttachOutcome> refuseIfBehind(long lastZxidSeen) {
    long zxid = readLocked(tree::lastZxid);
    if (lastZxidSeen > zxid) {
      return Optional.of(AttachOutcome.refused(ErrorCode.SERVER_BEHIND,
          "this server has applied zxid 0x" + Long.toHexString(zxid) + " but the client has seen 0x"
              + Long.toHexString(lastZxidSeen) + "; try another server or retry"));
    }
    return Optional.empty();
  }

  private void attachSink(long sessionId, SessionSink sink) {
    SessionSink previous = attached.put(sessionId, sink);
    watches.removeSession(sessionId);
    tracker.touch(sessionId);
    if (previous != null && previous != sink) {
      previous.moved();
    }
  }

  private Connected connected(SessionRecord session, boolean reattached) {
    return Connected.newBuilder()
        .setSessionId(session.sessionId())
        .setPassword(session.password())
        .setTimeoutMs(session.timeoutMs())
        .setZxid(tree.lastZxid())
        .setReattached(reattached)
        .build();
  }

  /** True when the session's client is attached to this server now. */
  public boolean isAttachedHere(long sessionId) {
    return attached.containsKey(sessionId);
  }

  /** The stream of a session broke or ended: drop its watches, keep the session. */
  public void detach(long sessionId, SessionSink sink) {
    lock.readLock().lock();
    try {
      if (attached.remove(sessionId, sink)) {
        watches.removeSession(sessionId);
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  // ------------------------------------------------------ periodic duties

  /**
   * Expires a session now, as if it had timed out: proposes its close; its
   * ephemerals go and its client is told SESSION_EXPIRED. Completes when applied.
   */
  public java.util.concurrent.CompletableFuture<Void> expireSession(long sessionId) {
    return replicator.propose(Txn.newBuilder()
            .setSessionId(sessionId)
            .setCloseSession(CloseSession.newBuilder().setReason(CloseSession.Reason.EXPIRED)))
        .thenApply(result -> null);
  }

  /**
   * Proposes the close of every session quiet for longer than its timeout.
   * Returns the nanoseconds until the next one may be ({@code
   * Long.MAX_VALUE} when none can be here: only the leader closes them).
   */
  long expireSessions() {
    Replicator r = replicator;
    if (r == null || !r.isLeader() || !trackerRefreshedAsLeader) {
      return Long.MAX_VALUE;
    }
    for (long sessionId : tracker.takeExpired()) {
      log.info("Session 0x{} timed out; closing it", Long.toHexString(sessionId));
      r.propose(Txn.newBuilder()
              .setSessionId(sessionId)
              .setCloseSession(CloseSession.newBuilder().setReason(CloseSession.Reason.EXPIRED)))
          .whenComplete((result, failure) -> {
            if (failure != null) {
              log.warn("Could not close expired session 0x{}: {}", Long.toHexString(sessionId), failure.toString());
              tracker.closeFailed(sessionId);
            }
          });
    }
    return tracker.nanosUntilNextExpiry();
  }

  /** Proposes the deletion of every TTL node whose time has passed (checked again at apply). */
  void expireTtlNodes() {
    Replicator r = replicator;
    if (r == null || !r.isLeader()) {
      return;
    }
    List<ExpireNode> expired = readLocked(() -> tree.expiredTtlNodes(clock.millis()));
    for (ExpireNode node : expired) {
      if (!ttlExpiriesInFlight.add(node.getPath())) {
        continue;
      }
      r.propose(Txn.newBuilder().setExpireNode(node)).whenComplete((result, failure) -> {
        if (failure != null) {
          ttlExpiriesInFlight.remove(node.getPath());
        }
      });
    }
  }

  /** The node count, for logs and admin. */
  public int nodeCount() {
    return readLocked(tree::nodeCount);
  }

  /** How many snapshots replaced the tree: at start, and each one the leader installed here. */
  public int snapshotsLoaded() {
    return snapshotsLoaded;
  }

  /** The open sessions in the replicated state. */
  public int sessionCount() {
    return readLocked(() -> tree.sessions().size());
  }

  /** The digest of the whole tree: equal on members that applied the same changes. */
  public long digest() {
    return readLocked(tree::digest);
  }

  /** A refusal or an attachment. */
  public record AttachOutcome(Connected connected, Error refusal, long replaces) {
    /** Attached, taking over from the session's attachment {@code replaces} (the latest applied here). */
    static AttachOutcome attached(Connected connected, long replaces) {
      return new AttachOutcome(connected, null, replaces);
    }

    static AttachOutcome refused(ErrorCode code, String message) {
      return new AttachOutcome(null, Error.newBuilder().setCode(code).setMessage(message).build(), 0);
    }

    public boolean isAttached() {
      return connected != null;
    }
  }
}
