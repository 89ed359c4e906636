package dev.corral.server.tree;

import static dev.corral.proto.v1.ErrorCode.BAD_VERSION;
import static dev.corral.proto.v1.ErrorCode.INVALID_ARGUMENT;
import static dev.corral.proto.v1.ErrorCode.NODE_EXISTS;
import static dev.corral.proto.v1.ErrorCode.NOT_EMPTY;
import static dev.corral.proto.v1.ErrorCode.NO_CHILDREN_FOR_EPHEMERALS;
import static dev.corral.proto.v1.ErrorCode.NO_NODE;

import dev.corral.proto.v1.CheckRequest;
import dev.corral.proto.v1.CheckResult;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.CreateResult;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.DeleteResult;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.OpResult;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.proto.v1.SetDataResult;
import dev.corral.proto.v1.WatchEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The write operations of one change (one zxid): each returns an
 * {@link OpResult} (an error case on failure) and appends the events it
 * caused. A failed operation may leave partial edits; the caller rolls the
 * change back.
 */
final class Writer {
  private final TreeState state;
  private final long zxid;
  private final long timeMs;
  private final TreeRules rules;
  private final long sessionId;
  private final List<WatchEvent> events = new ArrayList<>();
  private final Set<String> emptiedContainers = new TreeSet<>(Paths.UTF8_ORDER);

  Writer(TreeState state, long zxid, long timeMs, TreeRules rules, long sessionId) {
    this.state = state;
    this.zxid = zxid;
    this.timeMs = timeMs;
    this.rules = rules;
    this.sessionId = sessionId;
  }

  List<WatchEvent> events() {
    return events;
  }

  OpResult create(CreateRequest request) {
    Optional<Error> invalid = RequestValidator.checkCreateArguments(request);
    if (invalid.isPresent()) {
      return failure(invalid.get());
    }
    String path = request.getPath();
    boolean sequential = Modes.isSequential(request.getMode());
    String parent = sequential ? Paths.parent(path + "0") : Paths.parent(path);
    if (parent == null) {
      return failure(Errors.of(NODE_EXISTS, "the root node always exists", path));
    }
    if (request.hasParentMode()) {
      Optional<Error> failed = createAncestors(path, parent, request.getParentMode());
      if (failed.isPresent()) {
        return failure(failed.get());
      }
    }
    // the error's path is the one asked for, as ZooKeeper's KeeperException.getPath(); the message names the parent
    Node parentNode = state.node(parent);
    if (parentNode == null) {
      return failure(Errors.of(NO_NODE, "parent node " + parent + " does not exist", path));
    }
    if (Modes.isEphemeral(parentNode.mode())) {
      return failure(noChildrenForEphemerals(parent, path));
    }
    String actual = sequential ? path + String.format(Locale.ROOT, "%010d", parentNode.childCounter()) : path;
    if (state.node(actual) != null) {
      return failure(Errors.of(NODE_EXISTS, "node " + actual + " already exists", path));
    }
    CreateMode mode = request.getMode();
    long owner = Modes.isEphemeral(mode) ? sessionId : 0;
    byte[] data = request.getData().isEmpty() ? Node.NO_DATA : request.getData().toByteArray();
    Node node = Node.created(data, zxid, timeMs, owner, mode, request.getTtlMs());
    add(parent, actual, node);
    return OpResult.newBuilder()
        .setCreate(CreateResult.newBuilder().setPath(actual).setStat(node.stat()))
        .build();
  }

  OpResult delete(DeleteRequest request) {
    String path = request.getPath();
    if (path.equals(Paths.ROOT)) {
      return failure(Errors.of(INVALID_ARGUMENT, "the root node cannot be deleted", path));
    }
    Optional<Error> mismatch = versionedLookup(path, request.getVersion());
    if (mismatch.isPresent()) {
      return failure(mismatch.get());
    }
    Node node = state.node(path);
    if (node.numChildren() > 0) {
      return failure(Errors.of(NOT_EMPTY,
          "node " + path + " has " + node.numChildren() + " children", path));
    }
    remove(path);
    return OpResult.newBuilder().setDelete(DeleteResult.getDefaultInstance()).build();
  }

  OpResult setData(SetDataRequest request) {
    String path = request.getPath();
    Optional<Error> mismatch = versionedLookup(path, request.getVersion());
    if (mismatch.isPresent()) {
      return failure(mismatch.get());
    }
    Node node = state.node(path);
    byte[] data = request.getData().isEmpty() ? Node.NO_DATA : request.getData().toByteArray();
    Node changed = node.withData(data, zxid, timeMs);
    state.replace(path, changed);
    events.add(event(EventType.NODE_DATA_CHANGED, path));
    return OpResult.newBuilder()
        .setSetData(SetDataResult.newBuilder().setStat(changed.stat()))
        .build();
  }

  OpResult check(CheckRequest request) {
    String path = request.getPath();
    Optional<Error> mismatch = versionedLookup(path, request.getVersion());
    if (mismatch.isPresent()) {
      return failure(mismatch.get());
    }
    return OpResult.newBuilder().setCheck(CheckResult.getDefaultInstance()).build();
  }

  /**
   * Removes an existing, childless node and updates its parent. A container
   * parent left without children is remembered for {@link #removeEmptiedContainers}.
   */
  void remove(String path) {
    state.remove(path);
    String parent = Paths.parent(path);
    Node parentNode = state.node(parent).withChildRemoved(zxid, rules.deleteCountsInChildCounter());
    state.replace(parent, parentNode);
    events.add(event(EventType.NODE_DELETED, path));
    events.add(event(EventType.NODE_CHILDREN_CHANGED, parent));
    if (Modes.isContainer(parentNode.mode()) && parentNode.numChildren() == 0) {
      emptiedContainers.add(parent);
    }
  }

  /**
   * Ends the change: removes the containers it left without children (and
   * container ancestors that this empties in turn). Done once, at the end, so
   * that later operations of the same multi may still use a container that an
   * earlier one emptied ("delete /c/a; create /c/b").
   */
  void removeEmptiedContainers() {
    while (!emptiedContainers.isEmpty()) {
      String container = emptiedContainers.iterator().next();
      emptiedContainers.remove(container);
      Node node = state.node(container);
      if (node != null && Modes.isContainer(node.mode()) && node.numChildren() == 0
          && (node.childCounter() > 0 || !rules.onlyContainersThatHadChildrenGo())) {
        remove(container);
      }
    }
  }

  /** Creates {@code parent} and its missing ancestors for a create of {@code path}, the one its errors name. */
  private Optional<Error> createAncestors(String path, String parent, CreateMode mode) {
    List<String> missing = new ArrayList<>();
    String ancestor = parent;
    while (state.node(ancestor) == null) {
      missing.add(ancestor);
      ancestor = Paths.parent(ancestor);
    }
    if (Modes.isEphemeral(state.node(ancestor).mode())) {
      return Optional.of(noChildrenForEphemerals(ancestor, path));
    }
    for (int i = missing.size() - 1; i >= 0; i--) {
      String created = missing.get(i);
      add(Paths.parent(created), created, Node.created(Node.NO_DATA, zxid, timeMs, 0, mode, 0));
    }
    return Optional.empty();
  }

  private void add(String parent, String path, Node node) {
    state.insert(path, node);
    state.replace(parent, state.node(parent).withChildAdded(zxid));
    events.add(event(EventType.NODE_CREATED, path));
    events.add(event(EventType.NODE_CHILDREN_CHANGED, parent));
  }

  private WatchEvent event(EventType type, String path) {
    return WatchEvent.newBuilder().setType(type).setPath(path).setZxid(zxid).build();
  }

  /**
   * Why an operation on {@code path} expecting {@code version} (-1: any) cannot
   * go on: the path breaks a rule, the node is missing, or its version differs.
   */
  private Optional<Error> versionedLookup(String path, int version) {
    Optional<Error> invalid = PathRules.check(path, false);
    if (invalid.isPresent()) {
      return invalid;
    }
    Node node = state.node(path);
    if (node == null) {
      return Optional.of(noNode(path));
    }
    if (!versionMatches(version, node)) {
      return Optional.of(badVersion(path, version, node));
    }
    return Optional.empty();
  }

  private static boolean versionMatches(int expected, Node node) {
    return expected == -1 || expected == node.version();
  }

  private static Error badVersion(String path, int expected, Node node) {
    return Errors.of(BAD_VERSION,
        "node " + path + " has version " + node.version() + ", expected " + expected, path);
  }

  private static Error noNode(String path) {
    return Errors.of(NO_NODE, "node " + path + " does not exist", path);
  }

  private static Error noChildrenForEphemerals(String parent, String path) {
    return Errors.of(NO_CHILDREN_FOR_EPHEMERALS,
        "node " + parent + " is ephemeral and cannot have children", path);
  }

  private static OpResult failure(Error error) {
    return OpResult.newBuilder().setError(error).build();
  }
}
