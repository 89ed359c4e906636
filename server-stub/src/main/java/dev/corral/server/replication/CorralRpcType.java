package dev.corral.server.replication;

import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;

/**
 * Ratis's gRPC transport with Corral's log appender
 * ({@link CommitTellingLogAppender}). Ratis finds it by its class name
 * ({@code raft.rpc.type}), so it must stay public with a public constructor.
 */
public final class CorralRpcType implements RpcType {
  @Override
  public String name() {
    return CorralRpcType.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new GrpcFactory(parameters) {
      @Override
      public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
        return new CommitTellingLogAppender(server, state, follower);
      }
    };
  }
}
