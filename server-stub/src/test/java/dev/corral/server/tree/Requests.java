package dev.corral.server.tree;

import com.google.protobuf.ByteString;
import dev.corral.proto.v1.CheckRequest;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.DeleteRequest;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.SetDataRequest;
import java.util.Arrays;

/** Short builders for requests and multi operations in tests. */
final class Requests {
  private Requests() {}

  static CreateRequest.Builder createOf(String path, CreateMode mode) {
    return CreateRequest.newBuilder().setPath(path).setMode(mode);
  }

  static Request create(String path) {
    return create(path, CreateMode.PERSISTENT);
  }

  static Request create(String path, CreateMode mode) {
    return create(createOf(path, mode));
  }

  static Request create(CreateRequest.Builder create) {
    return Request.newBuilder().setCreate(create).build();
  }

  static Request delete(String path, int version) {
    return Request.newBuilder().setDelete(DeleteRequest.newBuilder().setPath(path).setVersion(version)).build();
  }

  static Request setData(String path, String data, int version) {
    return Request.newBuilder().setSetData(setDataOf(path, data, version)).build();
  }

  static Request exists(String path) {
    return Request.newBuilder().setExists(ExistsRequest.newBuilder().setPath(path)).build();
  }

  static Request getData(String path) {
    return Request.newBuilder().setGetData(GetDataRequest.newBuilder().setPath(path)).build();
  }

  static Request getChildren(String path) {
    return Request.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath(path)).build();
  }

  static Request multi(MultiOp... ops) {
    return Request.newBuilder().setMulti(MultiRequest.newBuilder().addAllOps(Arrays.asList(ops))).build();
  }

  static MultiOp opCreate(String path, CreateMode mode) {
    return MultiOp.newBuilder().setCreate(createOf(path, mode)).build();
  }

  static MultiOp opDelete(String path, int version) {
    return MultiOp.newBuilder().setDelete(DeleteRequest.newBuilder().setPath(path).setVersion(version)).build();
  }

  static MultiOp opSetData(String path, String data, int version) {
    return MultiOp.newBuilder().setSetData(setDataOf(path, data, version)).build();
  }

  static MultiOp opCheck(String path, int version) {
    return MultiOp.newBuilder().setCheck(CheckRequest.newBuilder().setPath(path).setVersion(version)).build();
  }

  static MultiOp opGetData(String path) {
    return MultiOp.newBuilder().setGetData(GetDataRequest.newBuilder().setPath(path)).build();
  }

  static MultiOp opGetChildren(String path) {
    return MultiOp.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath(path)).build();
  }

  static MultiOp opExists(String path) {
    return MultiOp.newBuilder().setExists(ExistsRequest.newBuilder().setPath(path)).build();
  }

  private static SetDataRequest.Builder setDataOf(String path, String data, int version) {
    return SetDataRequest.newBuilder().setPath(path).setData(ByteString.copyFromUtf8(data)).setVersion(version);
  }
}
