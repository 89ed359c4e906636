package dev.corral.client;

/**
 * Why an operation failed. Mirrors the protocol's error codes, plus the
 * client-side ones; each knows whether retrying (on another server, or later)
 * may succeed.
 */
public enum Code {
  NO_NODE(false),
  NODE_EXISTS(false),
  BAD_VERSION(false),
  NOT_EMPTY(false),
  NO_CHILDREN_FOR_EPHEMERALS(false),
  /** The session is gone; a new one is needed. */
  SESSION_EXPIRED(false),
  /**
   * The session was re-attached through another connection before this change
   * reached the log: it did not happen (the client re-attaches, then a retry may succeed).
   */
  SESSION_MOVED(true),
  INVALID_PATH(false),
  DATA_TOO_LARGE(false),
  INVALID_ARGUMENT(false),
  NO_WATCHER(false),
  /** In a failed multi: this op was undone because another failed. */
  ROLLED_BACK(false),
  HANDSHAKE_REQUIRED(false),
  UNKNOWN_OPERATION(false),
  REQUEST_TOO_LARGE(false),
  /** The server cannot replicate writes right now. */
  NOT_READY(true),
  /** The server is behind what this client has seen. */
  SERVER_BEHIND(true),
  /** The operation did not complete in time; it may or may not have happened. */
  OPERATION_TIMEOUT(true),
  INTERNAL(false),
  /**
   * The server ended the stream because this client did not read what it was
   * sent; the session lives on (the client re-attaches). The operation may or
   * may not have happened.
   */
  CLIENT_NOT_READING(true),
  /**
   * The answer was larger than this client takes (64 MiB), e.g. a multi of
   * many large reads: the operation was carried out (a write took effect),
   * only its answer was withheld. Read less at once.
   */
  RESPONSE_TOO_LARGE(false),
  /** The connection broke before the answer came; the operation may or may not have happened. */
  CONNECTION_LOSS(true),
  /** The client was closed. */
  CLIENT_CLOSED(false);

  private final boolean retryable;

  Code(boolean retryable) {
    this.retryable = retryable;
  }

  /** True when retrying may succeed (for operations safe to repeat). */
  public boolean isRetryable() {
    return retryable;
  }
}
