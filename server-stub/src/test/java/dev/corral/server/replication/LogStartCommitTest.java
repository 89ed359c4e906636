package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.proto.RaftProtos.TermIndexProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Ratis follower, sent AppendEntries by hand as two leaders in turn:
 * member 2 leads term 2 for a moment and gets its first entry to member 1
 * only; member 3, which wrote its own first entry in term 1, then leads term 3.
 * What member 3's appender sends decides whether member 1 can ever follow it
 * ({@link CommitTellingLogAppender#committingOnlyWhatItCarries}).
 */
class LogStartCommitTest {
  private static final RaftGroupId GROUP = RaftGroupId.randomId();
  private static final RaftPeerId FOLLOWER = RaftPeerId.valueOf("1");
  private static final RaftPeerId DEPOSED = RaftPeerId.valueOf("2");
  private static final RaftPeerId LEADER = RaftPeerId.valueOf("3");
  /** What member 3 has committed by the time it reaches member 1. */
  private static final long LEADERS_COMMIT = 5;

  @TempDir
  Path dir;
  private RaftServer follower;
  private long callId;

  @BeforeEach
  void startFollower() throws IOException {
    RaftProperties p = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(p, List.of(dir.toFile()));
    GrpcConfigKeys.Server.setHost(p, "127.0.0.1");
    GrpcConfigKeys.Server.setPort(p, 0);
    // it must never campaign: the test plays every other member
    TimeDuration never = TimeDuration.valueOf(10, TimeUnit.MINUTES);
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, never);
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, never.add(TimeDuration.ONE_SECOND));
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMin(p, never);
    RaftServerConfigKeys.Rpc.setFirstElectionTimeoutMax(p, never.add(TimeDuration.ONE_SECOND));
    RaftGroup group = RaftGroup.valueOf(GROUP, peer(FOLLOWER), peer(DEPOSED), peer(LEADER));
    follower = RaftServer.newBuilder()
        .setServerId(FOLLOWER)
        .setGroup(group)
        .setStateMachine(new BaseStateMachine())
        .setProperties(p)
        .setOption(RaftStorage.StartupOption.FORMAT)
        .build();
    follower.start();
  }

  @AfterEach
  void stopFollower() throws IOException {
    if (follower != null) {
      follower.close();
    }
  }

  @Test
  void ratissOwnHeartbeatFromTheLogStartStrandsAFollowerHoldingADeposedLeadersFirstEntry() throws IOException {
    followerHoldsTheDeposedLeadersFirstEntry();

    send(heartbeatFromTheLogStart());

    assertEquals(0, committedIndex(), "the deposed leader's entry counts as committed");
    assertEquals(AppendResult.INCONSISTENCY, send(theLeadersLogFromItsStart()).getResult(),
        "the leader's log is refused: its first entry would replace a committed one");
  }

  @Test
  void aHeartbeatFromTheLogStartCommittingOnlyWhatItCarriesLetsTheFollowerTakeTheLeadersLog() throws IOException {
    followerHoldsTheDeposedLeadersFirstEntry();
    AppendEntriesRequestProto ratiss = heartbeatFromTheLogStart();

    AppendEntriesRequestProto sent = CommitTellingLogAppender.committingOnlyWhatItCarries(ratiss);
    send(sent);

    assertEquals(-1, sent.getLeaderCommit());
    assertEquals(-1, committedIndex(), "nothing committed on the strength of an entry no one sent");
    assertEquals(AppendResult.SUCCESS, send(theLeadersLogFromItsStart()).getResult());
    assertEquals(1, division().getRaftLog().getTermIndex(0).getTerm(), "the leader's first entry replaced the other");
    assertEquals(3, division().getRaftLog().getTermIndex(1).getTerm());
  }

  @Test
  void aRequestFromTheLogStartCommitsNoFurtherThanItsLastEntry() {
    AppendEntriesRequestProto carrying = theLeadersLogFromItsStart().toBuilder().setLeaderCommit(LEADERS_COMMIT).build();

    assertEquals(1, CommitTellingLogAppender.committingOnlyWhatItCarries(carrying).getLeaderCommit());
  }

  @Test
  void aRequestAfterAPreviousEntryIsSentAsRatisBuiltIt() {
    AppendEntriesRequestProto afterOne = request(LEADER, 3, List.of(entry(3, 2)))
        .setPreviousLog(TermIndexProto.newBuilder().setTerm(3).setIndex(1))
        .setLeaderCommit(LEADERS_COMMIT)
        .build();

    assertSame(afterOne, CommitTellingLogAppender.committingOnlyWhatItCarries(afterOne));
  }

  private void followerHoldsTheDeposedLeadersFirstEntry() throws IOException {
    AppendEntriesReplyProto reply = send(request(DEPOSED, 2, List.of(entry(2, 0))).setLeaderCommit(-1).build());
    assertEquals(AppendResult.SUCCESS, reply.getResult());
    assertEquals(-1, committedIndex());
  }

  /** As Ratis's appender builds a heartbeat for a follower it has backed off to the log's start. */
  private AppendEntriesRequestProto heartbeatFromTheLogStart() {
    return request(LEADER, 3, List.of()).setLeaderCommit(Math.min(LEADERS_COMMIT, 0)).build();
  }

  private AppendEntriesRequestProto theLeadersLogFromItsStart() {
    return request(LEADER, 3, List.of(entry(1, 0), entry(3, 1))).setLeaderCommit(-1).build();
  }

  private AppendEntriesRequestProto.Builder request(RaftPeerId from, long term, List<LogEntryProto> entries) {
    return AppendEntriesRequestProto.newBuilder()
        .setServerRequest(RaftRpcRequestProto.newBuilder()
            .setRequestorId(from.toByteString())
            .setReplyId(FOLLOWER.toByteString())
            .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(GROUP.toByteString()))
            .setCallId(++callId))
        .setLeaderTerm(term)
        .addAllEntries(entries);
  }

  private static LogEntryProto entry(long term, long index) {
    return LogEntryProto.newBuilder()
        .setTerm(term)
        .setIndex(index)
        .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
            .setClientId(ClientId.randomId().toByteString())
            .setCallId(index)
            .setLogData(ByteString.copyFromUtf8("t" + term + "i" + index)))
        .build();
  }

  private AppendEntriesReplyProto send(AppendEntriesRequestProto request) throws IOException {
    return follower.appendEntries(request);
  }

  private long committedIndex() throws IOException {
    return division().getRaftLog().getLastCommittedIndex();
  }

  private RaftServer.Division division() throws IOException {
    return follower.getDivision(GROUP);
  }

  private static RaftPeer peer(RaftPeerId id) {
    return RaftPeer.newBuilder().setId(id).setAddress("127.0.0.1:1").build();
  }
}
