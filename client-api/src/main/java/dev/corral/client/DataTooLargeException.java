package dev.corral.client;

import java.util.List;

/** The data is larger than the server's limit. */
public final class DataTooLargeException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public DataTooLargeException(String message, String path, List<OpResult> opResults) {
    super(Code.DATA_TOO_LARGE, message, path, opResults, null);
  }

  public DataTooLargeException(String message, String path) {
    this(message, path, List.of());
  }
}
