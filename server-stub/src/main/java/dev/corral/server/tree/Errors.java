package dev.corral.server.tree;

import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;

/** Builds {@link Error} values. */
final class Errors {
  private Errors() {}

  static Error of(ErrorCode code, String message, String path) {
    return Error.newBuilder().setCode(code).setMessage(message).setPath(path).build();
  }

  static Error of(ErrorCode code, String message) {
    return Error.newBuilder().setCode(code).setMessage(message).build();
  }

  /** The same error with {@code prefix} put before its message. */
  static Error prefixed(String prefix, Error error) {
    return error.toBuilder().setMessage(prefix + error.getMessage()).build();
  }
}
