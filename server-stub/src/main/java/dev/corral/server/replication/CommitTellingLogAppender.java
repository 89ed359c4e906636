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
    AppendEntriesRequestProto request = super.newAppendEntriesRequest(callId, heartbeat);
    if (request != null) {
      commitTold = Math.max(commitTold, telling ? committed : request.getLeaderCommit());
    }
    return request;
  }
}
