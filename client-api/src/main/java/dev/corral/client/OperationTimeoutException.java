package dev.corral.client;

import java.util.List;

/** The operation did not complete in time; it may or may not have happened. */
public final class OperationTimeoutException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public OperationTimeoutException(String message, String path, List<OpResult> opResults) {
    super(Code.OPERATION_TIMEOUT, message, path, opResults, null);
  }

  public OperationTimeoutException(String message, String path) {
    this(message, path, List.of());
  }
}
