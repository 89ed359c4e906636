package dev.corral.server.replication;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.corral.proto.internal.ForwardBatch;
import dev.corral.proto.internal.ForwardReply;
import dev.corral.proto.internal.ForwardingGrpc;
import java.io.InputStream;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.Status;

/**
 * The {@code corral.internal.v1.Forwarding/Forward} call (forward.proto) as
 * Ratis's gRPC speaks it: it is served on the Raft peer port, by Ratis's own
 * (shaded) gRPC server, so its descriptor is built here for that gRPC, with our
 * protobuf messages as they are.
 */
final class ForwardingCall {
  static final MethodDescriptor<ForwardBatch, ForwardReply> METHOD = MethodDescriptor.<ForwardBatch, ForwardReply>newBuilder()
      .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
      .setFullMethodName(ForwardingGrpc.getForwardMethod().getFullMethodName())
      .setRequestMarshaller(marshaller(ForwardBatch.parser()))
      .setResponseMarshaller(marshaller(ForwardReply.parser()))
      .build();

  private ForwardingCall() {}

  private static <T extends MessageLite> MethodDescriptor.Marshaller<T> marshaller(Parser<T> parser) {
    return new MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(T value) {
        return value.toByteString().newInput();
      }

      @Override
      public T parse(InputStream stream) {
        try {
          return parser.parseFrom(stream);
        } catch (InvalidProtocolBufferException e) {
          throw Status.INVALID_ARGUMENT.withDescription("not a forwarding message: " + e.getMessage())
              .withCause(e).asRuntimeException();
        }
      }
    };
  }
}
