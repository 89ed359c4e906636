package dev.corral.client.grpc;

import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import dev.corral.client.OpResult;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Response;
import java.util.List;

/** The one place where protocol errors become {@link CoordinationException}s. */
final class Errors {
  private Errors() {}

  /** The client code of a protocol code (unknown codes are INTERNAL). */
  static Code code(ErrorCode code) {
    return switch (code) {
      case OK, UNRECOGNIZED, INTERNAL -> Code.INTERNAL;
      default -> Code.valueOf(code.name());
    };
  }

  /** The exception for a protocol error, paths seen through {@code namespace}. */
  static CoordinationException of(Error error, Namespace namespace, List<OpResult> opResults) {
    return CoordinationException.of(code(error.getCode()), error.getMessage(),
        namespace.toClient(error.getPath()), opResults, null);
  }

  /**
   * The response itself if it succeeded; otherwise throws its error as an exception
   * (for a multi, with every op's result).
   */
  static Response check(Response response, Namespace namespace) throws CoordinationException {
    if (!response.hasError()) {
      return response;
    }
    List<OpResult> opResults = response.hasMulti() ? Protos.opResults(response.getMulti(), namespace) : List.of();
    throw of(response.getError(), namespace, opResults);
  }
}
