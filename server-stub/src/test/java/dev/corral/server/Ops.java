package dev.corral.server;

import com.google.protobuf.ByteString;
import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.AddWatchRequest;
import dev.corral.proto.v1.CloseSessionRequest;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.PingRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.SetDataRequest;
import java.nio.charset.StandardCharsets;

/** Request builders for tests. */
final class Ops {
  private Ops() {}

  static ByteString bytes(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }

  static CreateRequest.Builder createOp(String path, String data, CreateMode mode) {
    return CreateRequest.newBuilder().setPath(path).setData(bytes(data)).setMode(mode);
  }

  static Request.Builder create(String path, String data, CreateMode mode) {
    return Request.newBuilder().setCreate(createOp(path, data, mode));
  }

  static Request.Builder create(String path, String data) {
    return create(path, data, CreateMode.PERSISTENT);
  }

  static Request.Builder delete(String path, int version) {
    return Request.newBuilder().setDelete(DeleteRequest.newBuilder().setPath(path).setVersion(version));
  }

  static Request.Builder setData(String path, String data, int version) {
    return Request.newBuilder().setSetData(SetDataRequest.newBuilder().setPath(path).setData(bytes(data)).setVersion(version));
  }

  static Request.Builder getData(String path, boolean watch) {
    return Request.newBuilder().setGetData(GetDataRequest.newBuilder().setPath(path).setWatch(watch));
  }

  static Request.Builder exists(String path, boolean watch) {
    return Request.newBuilder().setExists(ExistsRequest.newBuilder().setPath(path).setWatch(watch));
  }

  static Request.Builder getChildren(String path, boolean watch) {
    return Request.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath(path).setWatch(watch));
  }

  static Request.Builder addWatch(String path, AddWatchMode mode) {
    return Request.newBuilder().setAddWatch(AddWatchRequest.newBuilder().setPath(path).setMode(mode));
  }

  static Request.Builder multi(MultiOp... ops) {
    MultiRequest.Builder multi = MultiRequest.newBuilder();
    for (MultiOp op : ops) {
      multi.addOps(op);
    }
    return Request.newBuilder().setMulti(multi);
  }

  static Request.Builder ping() {
    return Request.newBuilder().setPing(PingRequest.getDefaultInstance());
  }

  static Request.Builder closeSession() {
    return Request.newBuilder().setCloseSession(CloseSessionRequest.getDefaultInstance());
  }
}
