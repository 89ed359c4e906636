package dev.corral.client.grpc;

import com.google.protobuf.ByteString;
import dev.corral.client.AddWatchMode;
import dev.corral.client.Children;
import dev.corral.client.CreateOptions;
import dev.corral.client.Created;
import dev.corral.client.EventType;
import dev.corral.client.NodeData;
import dev.corral.client.Op;
import dev.corral.client.OpResult;
import dev.corral.client.Stat;
import dev.corral.client.WatchedEvent;
import dev.corral.proto.v1.CheckRequest;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.CreateResult;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.GetChildrenResult;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.GetDataResult;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.MultiResult;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.proto.v1.WatchEvent;
import java.util.List;

/** The one converter between protocol messages and the client API's values. */
final class Protos {
  private Protos() {}

  static Stat stat(dev.corral.proto.v1.Stat s) {
    return new Stat(s.getCzxid(), s.getMzxid(), s.getPzxid(), s.getCtime(), s.getMtime(), s.getVersion(),
        s.getCversion(), s.getAversion(), s.getEphemeralOwner(), s.getDataLength(), s.getNumChildren());
  }

  /** Node data for the wire; {@code null} (which ZooKeeper's API takes) is no data. */
  static ByteString data(byte[] data) {
    return data == null ? ByteString.EMPTY : ByteString.copyFrom(data);
  }

  static CreateRequest create(String serverPath, byte[] data, CreateOptions options) {
    CreateRequest.Builder create = CreateRequest.newBuilder()
        .setPath(serverPath)
        .setData(data(data))
        .setMode(CreateMode.valueOf(options.mode().name()))
        .setTtlMs(options.ttl().toMillis());
    switch (options.parents()) {
      case PERSISTENT -> create.setParentMode(CreateMode.PERSISTENT);
      case CONTAINER -> create.setParentMode(CreateMode.CONTAINER);
      case NONE -> { }
    }
    return create.build();
  }

  static Created created(CreateResult result, Namespace namespace) {
    return new Created(namespace.toClient(result.getPath()), stat(result.getStat()));
  }

  static NodeData nodeData(GetDataResult result) {
    return new NodeData(result.getData().toByteArray(), stat(result.getStat()));
  }

  static Children children(GetChildrenResult result) {
    return new Children(result.getChildrenList(), stat(result.getStat()));
  }

  static WatchedEvent event(WatchEvent event, Namespace namespace) {
    return new WatchedEvent(eventType(event.getType()), namespace.toClient(event.getPath()), event.getZxid());
  }

  static EventType eventType(dev.corral.proto.v1.EventType type) {
    return switch (type) {
      case NODE_CREATED -> EventType.NODE_CREATED;
      case NODE_DELETED -> EventType.NODE_DELETED;
      case NODE_DATA_CHANGED -> EventType.NODE_DATA_CHANGED;
      case NODE_CHILDREN_CHANGED -> EventType.NODE_CHILDREN_CHANGED;
      case NODE_FIRST -> EventType.NODE_FIRST;
      default -> throw new IllegalArgumentException("unknown event type " + type);
    };
  }

  static dev.corral.proto.v1.AddWatchMode addWatchMode(AddWatchMode mode) {
    return switch (mode) {
      case PERSISTENT -> dev.corral.proto.v1.AddWatchMode.PERSISTENT_WATCH_MODE;
      case PERSISTENT_RECURSIVE -> dev.corral.proto.v1.AddWatchMode.PERSISTENT_RECURSIVE_WATCH_MODE;
      case FIRST -> dev.corral.proto.v1.AddWatchMode.FIRST_WATCH_MODE;
    };
  }

  /** An op of a multi, its path already checked. */
  static MultiOp multiOp(Op op, Namespace namespace) {
    String path = namespace.toServer(op.path());
    MultiOp.Builder multiOp = MultiOp.newBuilder();
    if (op instanceof Op.Create create) {
      multiOp.setCreate(create(path, create.data(), create.options()));
    } else if (op instanceof Op.Delete delete) {
      multiOp.setDelete(DeleteRequest.newBuilder().setPath(path).setVersion(delete.version()));
    } else if (op instanceof Op.SetData setData) {
      multiOp.setSetData(SetDataRequest.newBuilder().setPath(path)
          .setData(data(setData.data())).setVersion(setData.version()));
    } else if (op instanceof Op.Check check) {
      multiOp.setCheck(CheckRequest.newBuilder().setPath(path).setVersion(check.version()));
    } else if (op instanceof Op.GetChildren) {
      multiOp.setGetChildren(GetChildrenRequest.newBuilder().setPath(path));
    } else if (op instanceof Op.GetData) {
      multiOp.setGetData(GetDataRequest.newBuilder().setPath(path));
    } else if (op instanceof Op.Exists) {
      multiOp.setExists(ExistsRequest.newBuilder().setPath(path));
    } else {
      throw new IllegalArgumentException("unknown op " + op);
    }
    return multiOp.build();
  }

  /** True for the ops that change nothing. */
  static boolean isRead(Op op) {
    return op instanceof Op.Check || op instanceof Op.GetChildren || op instanceof Op.GetData
        || op instanceof Op.Exists;
  }

  static List<OpResult> opResults(MultiResult result, Namespace namespace) {
    return result.getResultsList().stream().map(r -> opResult(r, namespace)).toList();
  }

  static OpResult opResult(dev.corral.proto.v1.OpResult result, Namespace namespace) {
    return switch (result.getResultCase()) {
      case CREATE -> new OpResult.CreateResult(namespace.toClient(result.getCreate().getPath()),
          stat(result.getCreate().getStat()));
      case DELETE -> new OpResult.DeleteResult();
      case SET_DATA -> new OpResult.SetDataResult(stat(result.getSetData().getStat()));
      case CHECK -> new OpResult.CheckResult();
      case GET_CHILDREN -> new OpResult.GetChildrenResult(result.getGetChildren().getChildrenList(),
          stat(result.getGetChildren().getStat()));
      case GET_DATA -> new OpResult.GetDataResult(nodeData(result.getGetData()));
      case EXISTS -> new OpResult.ExistsResult(result.getExists().hasStat()
          ? java.util.Optional.of(stat(result.getExists().getStat())) : java.util.Optional.empty());
      case ERROR -> new OpResult.ErrorResult(Errors.code(result.getError().getCode()),
          result.getError().getMessage());
      case RESULT_NOT_SET -> throw new IllegalArgumentException("a multi result without a result");
    };
  }
}
