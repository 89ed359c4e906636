package dev.corral.server.tree;

import static dev.corral.proto.v1.ErrorCode.DATA_TOO_LARGE;
import static dev.corral.proto.v1.ErrorCode.INVALID_ARGUMENT;

import com.google.protobuf.ByteString;
import dev.corral.client.SequentialNames;
import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetWatchesRequest;
import dev.corral.proto.v1.WatcherType;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Checks a request before it enters the log: path rules and a created path's
 * length (INVALID_PATH), data size (DATA_TOO_LARGE), and argument values
 * (INVALID_ARGUMENT: TTLs, versions, modes, watches inside a multi). A
 * request with no operation passes: the caller answers it as a protocol
 * error. Thread-safe.
 */
public final class RequestValidator {
  /** ZooKeeper's largest TTL (its TTL takes 40 bits of the node's ephemeral owner), refused above as there. */
  public static final long MAX_TTL_MS = (1L << 40) - 1;

  private final int maxDataBytes;

  /** Validates with a data limit of {@code maxDataBytes} per node. */
  public RequestValidator(int maxDataBytes) {
    if (maxDataBytes < 0) {
      throw new IllegalArgumentException("maxDataBytes must be >= 0, was " + maxDataBytes);
    }
    this.maxDataBytes = maxDataBytes;
  }

  /** The first problem found with {@code request}, or empty if it may enter the log. */
  public Optional<Error> validate(Request request) {
    return switch (request.getOpCase()) {
      case CREATE -> checkCreate(request.getCreate());
      case DELETE -> checkDelete(request.getDelete().getPath(), request.getDelete().getVersion());
      case SET_DATA -> path(request.getSetData().getPath())
          .or(() -> checkVersion(request.getSetData().getVersion(), request.getSetData().getPath()))
          .or(() -> checkData(request.getSetData().getData(), request.getSetData().getPath()));
      case EXISTS -> path(request.getExists().getPath());
      case GET_DATA -> path(request.getGetData().getPath());
      case GET_CHILDREN -> path(request.getGetChildren().getPath());
      case SYNC -> path(request.getSync().getPath());
      case ADD_WATCH -> path(request.getAddWatch().getPath())
          .or(() -> checkWatchMode(request.getAddWatch().getModeValue(), request.getAddWatch().getPath()));
      case REMOVE_WATCHES -> path(request.getRemoveWatches().getPath())
          .or(() -> checkWatcherType(request.getRemoveWatches().getTypeValue(), request.getRemoveWatches().getPath()));
      case SET_WATCHES -> checkSetWatches(request.getSetWatches());
      case GET_EPHEMERALS -> request.getGetEphemerals().getPrefixPath().isEmpty()
          ? Optional.empty() : path(request.getGetEphemerals().getPrefixPath());
      case GET_ALL_CHILDREN_NUMBER -> path(request.getGetAllChildrenNumber().getPath());
      case MULTI -> checkMulti(request.getMulti());
      case PING, CLOSE_SESSION, OP_NOT_SET -> Optional.empty();
    };
  }

  /**
   * The answer to {@code request} if it is refused before the log (its xid and
   * zxid not set), or empty if it may enter the log. A refused multi lists
   * every operation's result, as a multi that failed in the log does.
   */
  public Optional<Response> refusal(Request request) {
    if (request.getOpCase() == Request.OpCase.MULTI) {
      return refusedMulti(request.getMulti());
    }
    return validate(request).map(error -> Response.newBuilder().setError(error).build());
  }

  /**
   * The checks of a create that do not depend on server configuration (all but
   * the data size); {@link DataTree#apply} repeats them.
   */
  static Optional<Error> checkCreateArguments(CreateRequest create) {
    CreateMode mode = create.getMode();
    String path = create.getPath();
    if (mode == CreateMode.UNRECOGNIZED) {
      return invalid("unknown create mode " + create.getModeValue(), path);
    }
    Optional<Error> badPath = PathRules.check(path, Modes.isSequential(mode));
    if (badPath.isPresent()) {
      return badPath;
    }
    if (Modes.isTtl(mode) && create.getTtlMs() <= 0) {
      return invalid("ttl_ms must be > 0 for mode " + mode + ", was " + create.getTtlMs(), path);
    }
    if (!Modes.isTtl(mode) && create.getTtlMs() != 0) {
      return invalid("ttl_ms must be 0 for mode " + mode + ", was " + create.getTtlMs(), path);
    }
    if (create.hasParentMode() && !Modes.isParentMode(create.getParentMode())) {
      String parentMode = create.getParentMode() == CreateMode.UNRECOGNIZED
          ? "unknown mode " + create.getParentModeValue()
          : create.getParentMode().toString();
      return invalid("parent_mode must be PERSISTENT or CONTAINER, was " + parentMode, path);
    }
    return Optional.empty();
  }

  /**
   * A create before the log: the arguments, then the path's length and the
   * TTL's upper bound (here only, not in the apply: logs from before them
   * replay as they were applied), then the data size.
   */
  private Optional<Error> checkCreate(CreateRequest create) {
    return checkCreateArguments(create)
        .or(() -> PathRules.checkLength(create.getPath(), Modes.isSequential(create.getMode())))
        .or(() -> checkTtlLimit(create))
        .or(() -> checkData(create.getData(), create.getPath()));
  }

  private static Optional<Error> checkTtlLimit(CreateRequest create) {
    if (create.getTtlMs() <= MAX_TTL_MS) {
      return Optional.empty();
    }
    return invalid("ttl_ms must be at most " + MAX_TTL_MS + " (ZooKeeper's limit), was " + create.getTtlMs(),
        create.getPath());
  }

  private Optional<Error> checkMulti(MultiRequest multi) {
    return refusedMulti(multi).map(Response::getError);
  }

  private Optional<Response> refusedMulti(MultiRequest multi) {
    List<MultiOp> ops = multi.getOpsList();
    for (int i = 0; i < ops.size(); i++) {
      Optional<Error> problem = checkOp(ops.get(i));
      if (problem.isPresent()) {
        return Optional.of(MultiApplier.failed(ops, i, problem.get(), 0));
      }
    }
    return Optional.empty();
  }

  private Optional<Error> checkOp(MultiOp op) {
    return switch (op.getOpCase()) {
      case CREATE -> checkCreate(op.getCreate());
      case DELETE -> checkDelete(op.getDelete().getPath(), op.getDelete().getVersion());
      case SET_DATA -> path(op.getSetData().getPath())
          .or(() -> checkVersion(op.getSetData().getVersion(), op.getSetData().getPath()))
          .or(() -> checkData(op.getSetData().getData(), op.getSetData().getPath()));
      case CHECK -> path(op.getCheck().getPath())
          .or(() -> checkVersion(op.getCheck().getVersion(), op.getCheck().getPath()));
      case GET_CHILDREN -> checkRead(op.getGetChildren().getPath(), op.getGetChildren().getWatch());
      case GET_DATA -> checkRead(op.getGetData().getPath(), op.getGetData().getWatch());
      case EXISTS -> checkRead(op.getExists().getPath(), op.getExists().getWatch());
      case OP_NOT_SET -> invalid("the operation has no op set, or one this server does not know", "");
    };
  }

  private static Optional<Error> checkRead(String path, boolean watch) {
    return path(path).or(() -> watch ? invalid("watches cannot be set inside a multi", path) : Optional.empty());
  }

  private static Optional<Error> checkDelete(String path, int version) {
    return path(path)
        .or(() -> path.equals(Paths.ROOT) ? invalid("the root node cannot be deleted", path) : Optional.empty())
        .or(() -> checkVersion(version, path));
  }

  private Optional<Error> checkData(ByteString data, String path) {
    if (data.size() > maxDataBytes) {
      return Optional.of(Errors.of(DATA_TOO_LARGE,
          "data of " + data.size() + " bytes exceeds the limit of " + maxDataBytes + " bytes", path));
    }
    return Optional.empty();
  }

  private static Optional<Error> checkVersion(int version, String path) {
    return version < -1 ? invalid("version must be -1 (any) or >= 0, was " + version, path) : Optional.empty();
  }

  private static Optional<Error> checkWatchMode(int modeValue, String path) {
    AddWatchMode mode = AddWatchMode.forNumber(modeValue);
    if (mode == null) {
      return invalid("unknown add_watch mode " + modeValue, path);
    }
    if (mode == AddWatchMode.FIRST_WATCH_MODE && SequentialNames.sequenceOf(Paths.name(path)) < 0) {
      return invalid("a FIRST watch needs a node whose name ends in a 10-digit sequence counter", path);
    }
    return Optional.empty();
  }

  private static Optional<Error> checkWatcherType(int typeValue, String path) {
    WatcherType type = WatcherType.forNumber(typeValue);
    if (type == null || type == WatcherType.WATCHER_TYPE_UNSPECIFIED) {
      return invalid("remove_watches type must be set to a known type, was "
          + (type == null ? "unknown type " + typeValue : type), path);
    }
    return Optional.empty();
  }

  private static Optional<Error> checkSetWatches(SetWatchesRequest watches) {
    return Stream.of(watches.getDataWatchesList(), watches.getExistWatchesList(),
            watches.getChildWatchesList(), watches.getPersistentWatchesList(),
            watches.getPersistentRecursiveWatchesList(), watches.getFirstWatchesList())
        .flatMap(List::stream)
        .map(RequestValidator::path)
        .flatMap(Optional::stream)
        .findFirst()
        .or(() -> watches.getFirstWatchesList().stream()
            .map(path -> checkWatchMode(AddWatchMode.FIRST_WATCH_MODE_VALUE, path))
            .flatMap(Optional::stream)
            .findFirst());
  }

  private static Optional<Error> path(String path) {
    return PathRules.check(path, false);
  }

  private static Optional<Error> invalid(String message, String path) {
    return Optional.of(Errors.of(INVALID_ARGUMENT, message, path));
  }
}
