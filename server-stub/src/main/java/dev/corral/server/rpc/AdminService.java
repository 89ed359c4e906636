package dev.corral.server.rpc;

import dev.corral.proto.v1.AdminGrpc;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.proto.v1.Role;
import dev.corral.proto.v1.StatusRequest;
import dev.corral.server.ServerCore;
import dev.corral.server.replication.GroupView;
import io.grpc.stub.StreamObserver;

/** The admin view of this member: role, term, leader, applied zxid, sessions, nodes, tree digest. */
public final class AdminService extends AdminGrpc.AdminImplBase {
  private final ServerCore core;

  public AdminService(ServerCore core) {
    this.core = core;
  }

  @Override
  public void status(StatusRequest request, StreamObserver<MemberStatus> response) {
    response.onNext(status(core));
    response.onCompleted();
  }

  /** This member's status now. */
  public static MemberStatus status(ServerCore core) {
    GroupView view = core.replicator().view();
    return MemberStatus.newBuilder()
        .setMemberId(view.memberId())
        .setRole(switch (view.role()) {
          case LEADER -> Role.LEADER;
          case FOLLOWER -> Role.FOLLOWER;
          case CANDIDATE -> Role.CANDIDATE;
          case UNKNOWN -> Role.ROLE_UNKNOWN;
        })
        .setTerm(view.term())
        .setLeaderId(view.leaderId())
        .setAppliedZxid(core.lastZxid())
        .setSessions(core.sessionCount())
        .setNodes(core.nodeCount())
        .setTreeDigest(Long.toHexString(core.digest()))
        .addAllMembers(view.members())
        .setFailure(core.failure().orElse(""))
        .setNotServing(core.notServing().orElse(""))
        .build();
  }
}
