package dev.corral.server.tree;

import com.google.protobuf.UnsafeByteOperations;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.ExistsResult;
import dev.corral.proto.v1.GetChildrenResult;
import dev.corral.proto.v1.GetDataResult;
import dev.corral.proto.v1.OpResult;
import dev.corral.proto.v1.GetAllChildrenNumberResult;
import dev.corral.proto.v1.GetEphemeralsResult;
import dev.corral.proto.v1.Response;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/** The read operations, as {@link OpResult}s (an error case on failure). */
final class Reader {
  private Reader() {}

  static OpResult exists(TreeState state, String path) {
    Node node = state.node(path);
    ExistsResult.Builder result = ExistsResult.newBuilder();
    if (node != null) {
      result.setStat(node.stat());
    }
    return OpResult.newBuilder().setExists(result).build();
  }

  static OpResult getData(TreeState state, String path) {
    Node node = state.node(path);
    if (node == null) {
      return noNode(path);
    }
    // Safe: node data arrays are never mutated.
    GetDataResult result = GetDataResult.newBuilder()
        .setData(UnsafeByteOperations.unsafeWrap(node.data()))
        .setStat(node.stat())
        .build();
    return OpResult.newBuilder().setGetData(result).build();
  }

  static OpResult getChildren(TreeState state, String path) {
    Node node = state.node(path);
    if (node == null) {
      return noNode(path);
    }
    List<String> names = new ArrayList<>();
    for (String child : state.childPaths(path)) {
      names.add(Paths.name(child));
    }
    names.sort(Paths.UTF8_ORDER);
    GetChildrenResult result = GetChildrenResult.newBuilder()
        .addAllChildren(names)
        .setStat(node.stat())
        .build();
    return OpResult.newBuilder().setGetChildren(result).build();
  }

  /** The session's ephemeral nodes whose path starts with {@code prefix} ("" and "/" match them all), sorted. */
  static Response ephemerals(TreeState state, long sessionId, String prefix, long zxid) {
    List<String> paths = new ArrayList<>();
    for (String path : state.ephemeralPaths(sessionId)) {
      if (path.startsWith(prefix)) {
        paths.add(path);
      }
    }
    paths.sort(Paths.UTF8_ORDER);
    return Response.newBuilder().setZxid(zxid)
        .setGetEphemerals(GetEphemeralsResult.newBuilder().addAllPaths(paths)).build();
  }

  /** How many nodes are below the node at {@code path}: its children, theirs, and so on. */
  static Response allChildrenNumber(TreeState state, String path, long zxid) {
    if (state.node(path) == null) {
      return Responses.single(zxid, noNode(path));
    }
    int count = 0;
    Deque<String> pending = new ArrayDeque<>(state.childPaths(path));
    while (!pending.isEmpty()) {
      count++;
      pending.addAll(state.childPaths(pending.pop()));
    }
    return Response.newBuilder().setZxid(zxid)
        .setGetAllChildrenNumber(GetAllChildrenNumberResult.newBuilder().setCount(count)).build();
  }

  private static OpResult noNode(String path) {
    return OpResult.newBuilder()
        .setError(Errors.of(ErrorCode.NO_NODE, "node " + path + " does not exist", path))
        .build();
  }
}
