package dev.corral.client;

import java.util.List;

/** The node has children, so it cannot be deleted. */
public final class NotEmptyException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public NotEmptyException(String message, String path, List<OpResult> opResults) {
    super(Code.NOT_EMPTY, message, path, opResults, null);
  }

  public NotEmptyException(String message, String path) {
    this(message, path, List.of());
  }
}
