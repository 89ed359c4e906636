package dev.corral.server.replication;

import dev.corral.proto.v1.ErrorCode;
import java.util.concurrent.CompletionException;

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

  /** The failure a future reported, without the CompletionException wrapper futures add. */
  static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }
}
