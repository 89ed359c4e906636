package dev.corral.server.rpc;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.corral.proto.v1.ClientMessage;
import io.grpc.MethodDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

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

  /** Decodes what the transport read, never failing: a message that does not decode says why. */
  static final class Marshaller implements MethodDescriptor.Marshaller<DecodedMessage> {
    @Override
    public InputStream stream(DecodedMessage value) {
      return value.message().toByteString().newInput();
    }

    @Override
    public DecodedMessage parse(InputStream stream) {
      try (stream) {
        return of(ClientMessage.parseFrom(stream));
      } catch (InvalidProtocolBufferException e) {
        return new DecodedMessage(null, e.getMessage());
      } catch (IOException e) {
        throw new UncheckedIOException("reading a client's message failed", e);
      }
    }
  }
}
