package dev.corral.client;

/** The client was closed; no further operation is possible. */
public final class ClientClosedException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public ClientClosedException(String message) {
    super(Code.CLIENT_CLOSED, message, "");
  }
}
