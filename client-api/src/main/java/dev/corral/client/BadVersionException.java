package dev.corral.client;

import java.util.List;

/** The expected version did not match the node's. */
public final class BadVersionException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public BadVersionException(String message, String path, List<OpResult> opResults) {
    super(Code.BAD_VERSION, message, path, opResults, null);
  }

  public BadVersionException(String message, String path) {
    this(message, path, List.of());
  }
}
