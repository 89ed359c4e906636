package dev.corral.recipes.election;

/**
 * Thrown from {@link LeaderSelectorListener#stateChanged} to make the
 * {@link LeaderSelector} interrupt the thread running {@code takeLeadership}.
 */
public final class CancelLeadershipException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CancelLeadershipException() {
    super();
  }

  public CancelLeadershipException(String message) {
    super(message);
  }

  public CancelLeadershipException(String message, Throwable cause) {
    super(message, cause);
  }

  public CancelLeadershipException(Throwable cause) {
    super(cause);
  }
}
