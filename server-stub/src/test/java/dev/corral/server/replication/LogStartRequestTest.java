package dev.corral.server.replication;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcReplyProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc.RaftServerProtocolServiceImplBase;
import org.apache.ratis.thirdparty.io.grpc.Server;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real Corral leader sends a member whose log it must start afresh:
 * members 1 and 2 are real, member 3 a stand-in speaking Ratis's peer protocol
 * that answers heartbeats as a member holding a conflicting entry at index 0
 * would (INCONSISTENCY, next index 0) and is slow to take entries. The leader's
 * heartbeats to it then name no previous entry, and no request naming none may
 * carry a commit index beyond its own last entry: a Ratis follower would commit
 * its own entry at index 0 on such a heartbeat
 * ({@link CommitTellingLogAppender#committingOnlyWhatItCarries}; {@link
 * LogStartCommitTest} shows that follower's side). Without the cap, the
 * heartbeats here carry commit index 0.
 */
class LogStartRequestTest {
  @TempDir
  Path dataDirs;
  private final List<RaftReplicator> running = new ArrayList<>();
  private Server standIn;

  @AfterEach
  void closeEverything() {
    running.forEach(RaftReplicator::close);
    if (standIn != null) {
      standIn.shutdownNow();
    }
  }

  @Test
  void aRequestStartingAMembersLogCommitsNothingItDoesNotCarry() throws Exception {
    List<RaftMember> members = LocalMembers.onFreePorts("1", "2", "3");
    List<AppendEntriesRequestProto> seen = new CopyOnWriteArrayList<>();
    standIn = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", members.get(2).port()))
        .addService(new ConflictingMember(seen)).build().start();
    running.addAll(LocalMembers.create(dataDirs, members, List.of(new RecordingState(), new RecordingState()),
        b -> b)); // members 1 and 2
    LocalMembers.startTogether(running);
    RaftReplicator leader = LocalMembers.awaitLeader(running);
    Txns session = Txns.openSession(leader);
    leader.propose(session.create("/a")).get(60, TimeUnit.SECONDS);
    int committedBy = seen.size();

    // heartbeats go on while member 3's entries wait for an answer; look at a few sent after the commit
    await().atMost(60, TimeUnit.SECONDS).until(() -> {
      List<AppendEntriesRequestProto> since = List.copyOf(seen);
      return heartbeatsStartingTheLog(since.subList(committedBy, since.size())).size() >= 3;
    });
    for (AppendEntriesRequestProto request : seen.stream().filter(r -> !r.hasPreviousLog()).toList()) {
      int carried = request.getEntriesCount();
      long lastCarried = carried == 0 ? -1 : request.getEntries(carried - 1).getIndex();
      assertTrue(request.getLeaderCommit() <= lastCarried, "a request with no previous entry and "
          + (carried == 0 ? "no entries" : "entries up to " + lastCarried) + " told commit index "
          + request.getLeaderCommit());
    }
  }

  private static List<AppendEntriesRequestProto> heartbeatsStartingTheLog(List<AppendEntriesRequestProto> requests) {
    return requests.stream().filter(r -> r.getEntriesCount() == 0 && !r.hasPreviousLog()).toList();
  }

  /**
   * A member whose index 0 conflicts with every leader's: it votes for no one, answers heartbeats with
   * INCONSISTENCY and next index 0, and leaves requests carrying entries unanswered.
   */
  private static final class ConflictingMember extends RaftServerProtocolServiceImplBase {
    private final List<AppendEntriesRequestProto> seen;

    ConflictingMember(List<AppendEntriesRequestProto> seen) {
      this.seen = seen;
    }

    @Override
    public void requestVote(RequestVoteRequestProto request, StreamObserver<RequestVoteReplyProto> replies) {
      replies.onNext(RequestVoteReplyProto.newBuilder()
          .setServerReply(refusal(request.getServerRequest()))
          .setTerm(request.getCandidateTerm())
          .build());
      replies.onCompleted();
    }

    @Override
    public StreamObserver<AppendEntriesRequestProto> appendEntries(StreamObserver<AppendEntriesReplyProto> replies) {
      return new StreamObserver<>() {
        @Override
        public void onNext(AppendEntriesRequestProto request) {
          seen.add(request);
          if (request.getEntriesCount() > 0) {
            return; // as a member slow to write: the leader's heartbeats go on meanwhile
          }
          replies.onNext(AppendEntriesReplyProto.newBuilder()
              .setServerReply(refusal(request.getServerRequest()))
              .setTerm(request.getLeaderTerm())
              .setResult(AppendResult.INCONSISTENCY)
              .setNextIndex(0)
              .setFollowerCommit(-1)
              .setMatchIndex(-1)
              .setIsHearbeat(request.getEntriesCount() == 0)
              .build());
        }

        @Override
        public void onError(Throwable t) {
          // the leader went away: the test is ending
        }

        @Override
        public void onCompleted() {
          replies.onCompleted();
        }
      };
    }

    /** The reply header of a refused vote or append: everything this member answers. */
    private static RaftRpcReplyProto refusal(RaftRpcRequestProto request) {
      return RaftRpcReplyProto.newBuilder()
          .setRequestorId(request.getRequestorId())
          .setReplyId(request.getReplyId())
          .setRaftGroupId(request.getRaftGroupId())
          .setCallId(request.getCallId())
          .setSuccess(false)
          .build();
    }
  }
}
