package dev.corral.server.replication;

import dev.corral.proto.internal.ForwardBatch;
import dev.corral.proto.internal.ForwardRefusal;
import dev.corral.proto.internal.ForwardReply;
import dev.corral.proto.internal.Txn;
import java.util.EnumSet;
import java.util.concurrent.Executor;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;
import org.apache.ratis.thirdparty.io.grpc.ServerServiceDefinition;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's end of the forwarding streams ({@link ForwardingCall}): queues
 * each follower's txns in the proposer, in the order they arrive, and tells the
 * follower of those it gives up on. Added to Ratis's gRPC server on the Raft
 * peer port ({@link #customize}); runs on that server's transport threads, so
 * it never blocks (the proposer's drainer sends what it queues).
 */
final class ForwardingService {
  private static final Logger LOG = LoggerFactory.getLogger(ForwardingService.class);

  private final GroupCommitProposer proposer;
  private final Consumer<List<Long>> heardFrom;
  private final BooleanSupplier leading;
  private final String self;

  ForwardingService(String self, GroupCommitProposer proposer, Consumer<List<Long>> heardFrom,
      BooleanSupplier leading) {
    this.self = self;
    this.proposer = proposer;
    this.heardFrom = heardFrom;
    this.leading = leading;
  }

  /**
   * Adds the service to the builder of the peer port's server, handled on its
   * transport threads. The server has one executor supplier, so it also
   * places Ratis's calls, as {@link RatisProperties#runsOnTransportThread} says.
   */
  NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> types) {
    if (!types.contains(GrpcServices.Type.SERVER)) {
      return builder;
    }
    ServerServiceDefinition service = ServerServiceDefinition.builder(ForwardingCall.METHOD.getServiceName())
        .addMethod(ForwardingCall.METHOD, ServerCalls.asyncBidiStreamingCall(FollowerStream::new))
        .build();
    return builder.addService(service)
        .callExecutor(new ServerCallExecutorSupplier() {
          @Override
          public <ReqT, RespT> Executor getExecutor(ServerCall<ReqT, RespT> call, Metadata metadata) {
            MethodDescriptor<ReqT, RespT> method = call.getMethodDescriptor();
            return method == ForwardingCall.METHOD || RatisProperties.runsOnTransportThread(method)
                ? Runnable::run : null;
          }
        });
  }

  /** One follower's stream. */
  private final class FollowerStream implements StreamObserver<ForwardBatch> {
    private final StreamObserver<ForwardReply> replies;
    private boolean ended; // guarded by replies

    FollowerStream(StreamObserver<ForwardReply> replies) {
      this.replies = replies;
    }

    /**
     * Queues the txns, or refuses them where this member does not lead; heartbeats count only at the
     * leader's tracker (and a new leader starts every session's clock afresh).
     */
    @Override
    public void onNext(ForwardBatch forward) {
      boolean leads = leading.getAsBoolean();
      if (leads && forward.getHeartbeatSessionIdsCount() > 0) {
        heardFrom.accept(forward.getHeartbeatSessionIdsList());
      }
      for (Txn txn : forward.getTxnsList()) {
        if (leads) {
          proposer.proposeForwarded(txn, why -> refuse(txn, why));
        } else {
          refuse(txn, GroupCommitProposer.notReady("member " + self + " does not lead", null));
        }
      }
    }

    private void refuse(Txn txn, ReplicationException why) {
      ForwardReply reply = ForwardReply.newBuilder().addRefusals(ForwardRefusal.newBuilder()
          .setProposalId(txn.getProposalId())
          .setCode(why.code())
          .setMessage(why.getMessage() == null ? "" : why.getMessage())).build();
      synchronized (replies) {
        if (ended) {
          return; // the stream broke: its member takes everything it sent as lost
        }
        try {
          replies.onNext(reply);
        } catch (RuntimeException e) {
          ended = true;
          LOG.debug("could not tell a follower of a refused txn: {}", e.toString());
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      end();
    }

    @Override
    public void onCompleted() {
      end();
    }

    private void end() {
      synchronized (replies) {
        if (ended) {
          return;
        }
        ended = true;
        try {
          replies.onCompleted();
        } catch (RuntimeException e) {
          LOG.debug("ending a forwarding stream: {}", e.toString());
        }
      }
    }
  }
}
