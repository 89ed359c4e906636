package dev.corral.client;

import java.util.List;

/** The node (or, for a create, its parent) does not exist. */
public final class NoNodeException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public NoNodeException(String message, String path, List<OpResult> opResults) {
    super(Code.NO_NODE, message, path, opResults, null);
  }

  public NoNodeException(String message, String path) {
    this(message, path, List.of());
  }
}
