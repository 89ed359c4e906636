package dev.corral.server.rpc;

import dev.corral.proto.v1.ClientMessage;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;

/**
 * A client's message as it arrived: the ClientMessage it decodes to, or why it
 * does not decode (not protobuf, cut short, a string that is not UTF-8). The
 * session stream answers the latter with a fatal error naming the problem;
 * gRPC's own decoding failed such a call with UNKNOWN and no message, and
 * logged a stack trace per bad message.
 */
record DecodedMessage(ClientMessage message, String undecodable) {
  static DecodedMessage of(ClientMessage message) {
    return new DecodedMessage(message, null);
  }

  boolean decoded() {
    return undecodable == null;
  }

  /**
   * Decodes what the transport read with the generated marshaller (gRPC's
   * protobuf decoding, unchanged), never failing: a message that does not
   * decode says why.
   */
  static final class Marshaller implements MethodDescriptor.Marshaller<DecodedMessage> {
    private final MethodDescriptor.Marshaller<ClientMessage> generated;

    Marshaller(MethodDescriptor.Marshaller<ClientMessage> generated) {
      this.generated = generated;
    }

    @Override
    public InputStream stream(DecodedMessage value) {
      return generated.stream(value.message());
    }

    @Override
    public DecodedMessage parse(InputStream stream) {
      try {
        return of(generated.parse(stream));
      } catch (StatusRuntimeException e) { // gRPC's protobuf marshaller reports a bad message so
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return new DecodedMessage(null, cause.getMessage());
      }
    }
  }
}
