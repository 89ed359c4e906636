package dev.corral.server.replication;

import dev.corral.proto.v1.ErrorCode;

/** A proposal that could not be replicated; {@link #code()} says why. */
public final class ReplicationException extends RuntimeException {
  private final ErrorCode code;

  public ReplicationException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
