package dev.corral.server.rpc;

import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Response;
import dev.corral.server.replication.ReplicationException;
import io.grpc.Status;
import java.util.concurrent.CompletionException;

/** The one place where failures become protocol errors and gRPC statuses. */
final class Replies {
  private Replies() {}

  static Error error(ErrorCode code, String message) {
    return Error.newBuilder().setCode(code).setMessage(message).build();
  }

  static Response failed(long xid, long zxid, Error error) {
    return Response.newBuilder().setXid(xid).setZxid(zxid).setError(error).build();
  }

  /** The error a failed proposal answers with. */
  static Error fromFailure(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    if (cause instanceof ReplicationException re) {
      return error(re.code(), re.getMessage());
    }
    return error(ErrorCode.INTERNAL, "write failed: " + cause);
  }

  /** The gRPC status a stream ends with after a fatal error. */
  static Status statusOf(Error fatal) {
    Status status = switch (fatal.getCode()) {
      case HANDSHAKE_REQUIRED -> Status.FAILED_PRECONDITION;
      case UNKNOWN_OPERATION, INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
      case SESSION_EXPIRED -> Status.NOT_FOUND;
      case SESSION_MOVED -> Status.ABORTED;
      case SERVER_BEHIND, NOT_READY -> Status.UNAVAILABLE;
      case OPERATION_TIMEOUT -> Status.DEADLINE_EXCEEDED;
      case REQUEST_TOO_LARGE, CLIENT_NOT_READING -> Status.RESOURCE_EXHAUSTED;
      default -> Status.INTERNAL;
    };
    return status.withDescription(fatal.getCode() + ": " + fatal.getMessage());
  }
}
