package dev.corral.server.replication;

import dev.corral.proto.internal.ForwardBatch;
import dev.corral.proto.internal.ForwardRefusal;
import dev.corral.proto.internal.ForwardReply;
import dev.corral.proto.v1.ErrorCode;
import org.apache.ratis.thirdparty.io.grpc.CallOptions;
import org.apache.ratis.thirdparty.io.grpc.ConnectivityState;
import org.apache.ratis.thirdparty.io.grpc.ManagedChannel;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyChannelBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ClientCallStreamObserver;
import org.apache.ratis.thirdparty.io.grpc.stub.ClientCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;

/**
 * A follower's stream to the leader's {@link ForwardingService}, on a channel
 * of its own to the leader's peer port: carries the proposer's batches, in the
 * order sent, and the session heartbeats. Refusals that come back fail their
 * proposals. A link holds one stream: once it breaks or is closed, the link is
 * lost for good ({@link #lost()}), every proposal sent on it and not applied yet
 * fails with the outcome unknown, and the replicator opens a new link for what
 * comes next. Nothing is ever sent twice.
 */
final class ForwardingLink implements GroupCommitProposer.Route {
  private final RaftMember leader;
  private final GroupCommitProposer proposer;
  private final ManagedChannel channel;
  private final ClientCallStreamObserver<ForwardBatch> stream; // sent on under this link's lock
  private volatile ReplicationException lost;

  private ForwardingLink(RaftMember leader, GroupCommitProposer proposer) {
    this.leader = leader;
    this.proposer = proposer;
    // refusals are handled on the transport's thread: they only fail futures
    this.channel = NettyChannelBuilder.forAddress(leader.host(), leader.port()).usePlaintext().directExecutor().build();
    // waits for the connection rather than failing at once. Txns are handed over only once it is connected
    // (RaftReplicator.leaderKnown); heartbeats, and a hand-over that raced the connection's loss, may wait here
    // for a leader that is gone, and are lost with the link when the member learns of the next one
    this.stream = (ClientCallStreamObserver<ForwardBatch>) ClientCalls.asyncBidiStreamingCall(
        channel.newCall(ForwardingCall.METHOD, CallOptions.DEFAULT.withWaitForReady()), new Replies());
  }

  /** A link to {@code leader}, for {@code proposer}'s txns; it connects as it first sends. */
  static ForwardingLink open(RaftMember leader, GroupCommitProposer proposer) {
    return new ForwardingLink(leader, proposer);
  }

  /** The member this link sends to. */
  RaftMember leader() {
    return leader;
  }

  /**
   * True while the link's channel is connected to the leader; otherwise false,
   * and it starts connecting if it was idle. Checked before txns are handed
   * over; once handed over, they count as sent whatever happens next.
   */
  boolean connected() {
    return lost == null && channel.getState(true) == ConnectivityState.READY;
  }

  /** Sends {@code message} after everything sent before; false when the link is lost (nothing was sent). */
  synchronized boolean send(ForwardBatch message) {
    if (lost != null) {
      return false;
    }
    try {
      stream.onNext(message);
      return true;
    } catch (RuntimeException e) { // the call was cancelled or failed meanwhile
      lose("the stream to leader " + leader.id() + " failed: " + e, e);
      return false;
    }
  }

  @Override
  public ReplicationException lost() {
    return lost;
  }

  /** Ends the stream and the channel; what was sent on it and not applied yet fails, outcome unknown. */
  void close(String why) {
    lose("the stream to leader " + leader.id() + " was closed: " + why, null);
  }

  private void lose(String why, Throwable cause) {
    synchronized (this) {
      if (lost != null) {
        return;
      }
      lost = new ReplicationException(ErrorCode.OPERATION_TIMEOUT, why + "; the outcome is unknown", cause);
    }
    try {
      stream.cancel(why, cause);
    } catch (RuntimeException ignored) {
      // already ended
    }
    channel.shutdownNow();
    proposer.routeLost(this);
  }

  private final class Replies implements StreamObserver<ForwardReply> {
    @Override
    public void onNext(ForwardReply reply) {
      for (ForwardRefusal refusal : reply.getRefusalsList()) {
        proposer.refused(refusal.getProposalId(),
            new ReplicationException(refusal.getCode(), "leader " + leader.id() + ": " + refusal.getMessage(), null));
      }
    }

    @Override
    public void onError(Throwable t) {
      lose("the stream to leader " + leader.id() + " broke: " + t, t);
    }

    @Override
    public void onCompleted() {
      lose("leader " + leader.id() + " ended the stream", null);
    }
  }
}
