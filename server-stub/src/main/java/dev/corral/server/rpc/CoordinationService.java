package dev.corral.server.rpc;

import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.CoordinationGrpc;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.server.ServerConfig;
import dev.corral.server.ServerCore;
import dev.corral.server.tree.RequestValidator;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;

/** The gRPC face of the server: each Session call becomes a {@link SessionStream}. */
public final class CoordinationService extends CoordinationGrpc.CoordinationImplBase {
  private final ServerCore core;
  private final ServerConfig config;
  private final RequestValidator validator;
  private final SecureRandom random = new SecureRandom();

  public CoordinationService(ServerCore core, ServerConfig config) {
    this.core = core;
    this.config = config;
    this.validator = new RequestValidator(config.maxDataBytes());
  }

  @Override
  public StreamObserver<ClientMessage> session(StreamObserver<ServerMessage> responses) {
    ServerCallStreamObserver<ServerMessage> out = (ServerCallStreamObserver<ServerMessage>) responses;
    out.disableAutoRequest();
    SessionStream stream = new SessionStream(core, validator, config, random, out);
    out.setOnCancelHandler(stream::cancelled);
    out.setOnReadyHandler(stream::ready);
    out.request(1); // the handshake; more once the session is attached
    return stream;
  }
}
