package dev.corral.client;

import java.util.List;

/** The path breaks a path rule; the message names the rule. */
public final class InvalidPathException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public InvalidPathException(String message, String path, List<OpResult> opResults) {
    super(Code.INVALID_PATH, message, path, opResults, null);
  }

  public InvalidPathException(String message, String path) {
    this(message, path, List.of());
  }
}
