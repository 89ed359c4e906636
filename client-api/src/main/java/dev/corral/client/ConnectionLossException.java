package dev.corral.client;

import java.util.List;

/**
 * The connection broke before the answer came: the operation may or may not
 * have happened. The session may still be alive (state SUSPENDED).
 */
public final class ConnectionLossException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public ConnectionLossException(String message, Throwable cause) {
    super(Code.CONNECTION_LOSS, message, "", List.of(), cause);
  }
}
