package dev.corral.server.rpc;

import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.CoordinationGrpc;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.server.ServerConfig;
import dev.corral.server.ServerCore;
import dev.corral.server.tree.RequestValidator;
import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;

/**
 * The gRPC face of the server: each Session call becomes a {@link SessionStream}.
 * Its messages are decoded by {@link DecodedMessage.Marshaller}, so that one that
 * does not decode is answered as a protocol error rather than failing the call
 * with gRPC's UNKNOWN.
 */
public final class CoordinationService implements BindableService {
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
  public ServerServiceDefinition bindService() {
    ServiceDescriptor generated = CoordinationGrpc.getServiceDescriptor();
    MethodDescriptor<ClientMessage, ServerMessage> session = CoordinationGrpc.getSessionMethod();
    DecodedMessage.Marshaller decoder = new DecodedMessage.Marshaller(session.getRequestMarshaller());
    MethodDescriptor<DecodedMessage, ServerMessage> lenient =
        session.toBuilder(decoder, session.getResponseMarshaller()).build();
    ServiceDescriptor service = ServiceDescriptor.newBuilder(generated.getName())
        .setSchemaDescriptor(generated.getSchemaDescriptor()) // server reflection still describes the proto
        .addMethod(lenient)
        .build();
    return ServerServiceDefinition.builder(service)
        .addMethod(lenient, ServerCalls.asyncBidiStreamingCall(
            responses -> new DecodedMessages((SessionStream) session(responses))))
        .build();
  }

  /** Hands a Session call's messages to its stream: decoded ones as they are, the others as undecodable. */
  private record DecodedMessages(SessionStream stream) implements StreamObserver<DecodedMessage> {
    @Override
    public void onNext(DecodedMessage message) {
      if (message.decoded()) {
        stream.onNext(message.message());
      } else {
        stream.undecodable(message.undecodable());
      }
    }

    @Override
    public void onError(Throwable t) {
      stream.onError(t);
    }

    @Override
    public void onCompleted() {
      stream.onCompleted();
    }
  }

  /** Opens a Session call: its messages go to the stream returned. */
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
