package dev.corral.client;

import java.util.List;
import java.util.Objects;

/**
 * The root of every failure the client reports. Carries a {@link Code}, the
 * path it concerns (empty when none) and, for a failed multi, every op's result.
 * Use {@link #of} to get the subclass for a code.
 */
public class CoordinationException extends Exception {
  private static final long serialVersionUID = 1L;

  private final Code code;
  private final String path;
  private final transient List<OpResult> opResults;

  public CoordinationException(Code code, String message, String path) {
    this(code, message, path, List.of(), null);
  }

  public CoordinationException(Code code, String message, String path, List<OpResult> opResults, Throwable cause) {
    super(code + ": " + message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.path = path == null ? "" : path;
    this.opResults = List.copyOf(opResults);
  }

  public Code code() {
    return code;
  }

  /** The path the failure concerns; empty when none. */
  public String path() {
    return path;
  }

  /** For a failed multi: one result per op (the failing one with its error, the others ROLLED_BACK). */
  public List<OpResult> opResults() {
    return opResults;
  }

  /** The exception of the right subclass for {@code code}. */
  public static CoordinationException of(Code code, String message, String path) {
    return of(code, message, path, List.of(), null);
  }

  /** The exception of the right subclass for {@code code}, with multi results and a cause. */
  public static CoordinationException of(Code code, String message, String path, List<OpResult> opResults,
      Throwable cause) {
    return switch (code) {
      case NO_NODE -> new NoNodeException(message, path, opResults);
      case NODE_EXISTS -> new NodeExistsException(message, path, opResults);
      case BAD_VERSION -> new BadVersionException(message, path, opResults);
      case NOT_EMPTY -> new NotEmptyException(message, path, opResults);
      case NO_CHILDREN_FOR_EPHEMERALS -> new NoChildrenForEphemeralsException(message, path, opResults);
      case SESSION_EXPIRED -> new SessionExpiredException(message, cause);
      case SESSION_MOVED -> new SessionMovedException(message);
      case INVALID_PATH -> new InvalidPathException(message, path, opResults);
      case DATA_TOO_LARGE -> new DataTooLargeException(message, path, opResults);
      case INVALID_ARGUMENT -> new InvalidArgumentException(message, path, opResults);
      case NO_WATCHER -> new NoWatcherException(message, path);
      case CONNECTION_LOSS -> new ConnectionLossException(message, cause);
      case OPERATION_TIMEOUT -> new OperationTimeoutException(message, path);
      case CLIENT_CLOSED -> new ClientClosedException(message);
      default -> new CoordinationException(code, message, path, opResults, cause);
    };
  }
}
