package dev.corral.client;

/** The session was attached to another stream (another connection of the same session). */
public final class SessionMovedException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public SessionMovedException(String message) {
    super(Code.SESSION_MOVED, message, "");
  }
}
