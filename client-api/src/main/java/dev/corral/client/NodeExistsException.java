package dev.corral.client;

import java.util.List;

/** A node with that path already exists. */
public final class NodeExistsException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public NodeExistsException(String message, String path, List<OpResult> opResults) {
    super(Code.NODE_EXISTS, message, path, opResults, null);
  }

  public NodeExistsException(String message, String path) {
    this(message, path, List.of());
  }
}
