package dev.corral.client;

import java.util.List;

/** An argument has a value the operation does not accept. */
public final class InvalidArgumentException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public InvalidArgumentException(String message, String path, List<OpResult> opResults) {
    super(Code.INVALID_ARGUMENT, message, path, opResults, null);
  }

  public InvalidArgumentException(String message, String path) {
    this(message, path, List.of());
  }
}
