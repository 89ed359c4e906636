package dev.corral.server.replication;

import org.apache.ratis.grpc.server.GrpcLogAppender;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.raftlog.RaftLogIOException;

/**
 * Ratis's gRPC log appender, which also tells its follower of a new commit
 * index at once, in an empty AppendEntries, when it has no entries to send.
 *
 * <p>Ratis wakes the appenders whenever the commit index moves, but sends a
 * follower nothing until it has entries for it or a heartbeat is due (half the
 * election timeout), so a follower applies a write only then. Ratis's own
 * remedy is a metadata entry appended to the log after every commit: a second
 * entry, written and fsynced on every member, for each write. This tells the
 * followers without touching any log.
 *
 * <p>A heartbeat is sent for a commit only when the follower has been sent
 * every entry and answered for all of them (only then does Ratis's heartbeat
 * carry the commit index), and at most once per commit index.
 *
 * <p>It also keeps a request that starts the follower's log afresh from
 * committing an entry it does not carry ({@link #committingOnlyWhatItCarries}).
 */
final class CommitTellingLogAppender extends GrpcLogAppender {
  /** The highest commit index sent to the follower, or for which a heartbeat was built. */
  private volatile long commitTold;

  CommitTellingLogAppender(RaftServer.Division server, LeaderState leaderState, FollowerInfo follower) {
    super(server, leaderState, follower);
  }

  @Override
  public long getHeartbeatWaitTimeMs() {
    return commitToTell() ? 0 : super.getHeartbeatWaitTimeMs();
  }

  private boolean commitToTell() {
    return getRaftLog().getLastCommittedIndex() > commitTold && !hasAppendEntries() && !hasPendingDataRequests();
  }

  @Override
  public AppendEntriesRequestProto newAppendEntriesRequest(long callId, boolean heartbeat) throws RaftLogIOException {
    long committed = getRaftLog().getLastCommittedIndex();
    boolean telling = commitToTell();
    AppendEntriesRequestProto built = super.newAppendEntriesRequest(callId, heartbeat);
    if (built == null) {
      return null;
    }
    AppendEntriesRequestProto request = committingOnlyWhatItCarries(built);
    commitTold = Math.max(commitTold, telling && request == built ? committed : request.getLeaderCommit());
    return request;
  }

  /**
   * The request, with a commit index no higher than its last entry when it
   * names no previous entry, i.e. when it starts the follower's log at its
   * first index: -1 for a heartbeat.
   *
   * <p>A Ratis 3.3.0 follower commits up to min(leader's commit, previous
   * index + entries carried), taking 0 for a missing previous entry
   * ({@code ServerImplUtils.effectiveCommitIndex}): one too many. A heartbeat
   * with no previous entry then commits whatever the follower holds at index
   * 0, even the first entry of a term it led for a moment and lost before
   * anyone else took it. That follower then refuses every later request
   * starting at index 0 ("already committed") and every one starting at 1
   * (its index 0 is not the leader's), and stays behind for good, whoever
   * leads, until its process restarts. Seen on a fresh ensemble whose first
   * three elections came within a second: a member served an empty tree at
   * zxid 0 for minutes while the others went on.
   */
  static AppendEntriesRequestProto committingOnlyWhatItCarries(AppendEntriesRequestProto request) {
    if (request.hasPreviousLog()) {
      return request;
    }
    int carried = request.getEntriesCount();
    long lastCarried = carried == 0 ? -1 : request.getEntries(carried - 1).getIndex();
    if (request.getLeaderCommit() <= lastCarried) {
      return request;
    }
    return request.toBuilder().setLeaderCommit(lastCarried).build();
  }
}
