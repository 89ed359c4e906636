package dev.corral.client.grpc;

import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.Request;
import java.util.List;
import java.util.Optional;

/**
 * The limits the server told at connect. A request over its request-size cap
 * would end the whole stream (fatal REQUEST_TOO_LARGE, and every other request
 * in flight lost with it), so the client refuses it instead, without sending
 * it: DATA_TOO_LARGE when what makes it large is the data of a create or
 * setData, REQUEST_TOO_LARGE otherwise. Zero means the server did not say.
 */
record ServerLimits(int maxRequestBytes, int maxDataBytes) {
  /** What the wire adds around a request: the envelope's tag and length, and the xid set when sent. */
  private static final int ENVELOPE_BYTES = 16;

  static final ServerLimits UNKNOWN = new ServerLimits(0, 0);

  static ServerLimits of(Connected connected) {
    return new ServerLimits(connected.getMaxRequestBytes(), connected.getMaxDataBytes());
  }

  /** Why {@code request} must not be sent, if it must not. */
  Optional<CoordinationException> refusal(Request request) {
    if (maxRequestBytes <= 0) {
      return Optional.empty();
    }
    int bytes = request.getSerializedSize() + ENVELOPE_BYTES;
    if (bytes <= maxRequestBytes) {
      return Optional.empty();
    }
    int dataBytes = switch (request.getOpCase()) {
      case CREATE -> request.getCreate().getData().size();
      case SET_DATA -> request.getSetData().getData().size();
      default -> 0;
    };
    if (maxDataBytes > 0 && dataBytes > maxDataBytes) {
      return Optional.of(CoordinationException.of(Code.DATA_TOO_LARGE, "the data of " + dataBytes
          + " bytes is over the server's limit of " + maxDataBytes + " bytes (not sent)", null, List.of(), null));
    }
    return Optional.of(CoordinationException.of(Code.REQUEST_TOO_LARGE, "a request of about " + bytes
        + " bytes is over the server's request-size cap of " + maxRequestBytes + " bytes (not sent)", null,
        List.of(), null));
  }
}
