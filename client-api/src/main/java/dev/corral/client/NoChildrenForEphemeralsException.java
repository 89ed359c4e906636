package dev.corral.client;

import java.util.List;

/** Ephemeral nodes cannot have children. */
public final class NoChildrenForEphemeralsException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public NoChildrenForEphemeralsException(String message, String path, List<OpResult> opResults) {
    super(Code.NO_CHILDREN_FOR_EPHEMERALS, message, path, opResults, null);
  }

  public NoChildrenForEphemeralsException(String message, String path) {
    this(message, path, List.of());
  }
}
