package dev.corral.client;

import java.util.List;

/** The session is gone (expired or closed): its ephemeral nodes are gone too. */
public final class SessionExpiredException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public SessionExpiredException(String message, Throwable cause) {
    super(Code.SESSION_EXPIRED, message, "", List.of(), cause);
  }
}
