package dev.corral.client;

import java.util.List;

/** There was no such watch to remove. */
public final class NoWatcherException extends CoordinationException {
  private static final long serialVersionUID = 1L;

  public NoWatcherException(String message, String path, List<OpResult> opResults) {
    super(Code.NO_WATCHER, message, path, opResults, null);
  }

  public NoWatcherException(String message, String path) {
    this(message, path, List.of());
  }
}
