package dev.corral.server.tree;

import com.google.protobuf.UnsafeByteOperations;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.ExistsResult;
import dev.corral.proto.v1.GetChildrenResult;
import dev.corral.proto.v1.GetDataResult;
import dev.corral.proto.v1.OpResult;
import java.util.ArrayList;
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

  private static OpResult noNode(String path) {
    return OpResult.newBuilder()
        .setError(Errors.of(ErrorCode.NO_NODE, "node " + path + " does not exist", path))
        .build();
  }
}
