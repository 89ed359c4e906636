package dev.corral.server.replication;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.CreateRequest;
import dev.corral.proto.v1.Request;
import java.util.concurrent.TimeUnit;

/** Txns for tests: a session opened once, then creates on its behalf. */
final class Txns {
  private final long sessionId;

  private Txns(long sessionId) {
    this.sessionId = sessionId;
  }

  /** Opens a session through {@code replicator} (its id is the txn's zxid). */
  static Txns openSession(Replicator replicator) throws Exception {
    Txn.Builder open = Txn.newBuilder().setOpenSession(
        OpenSession.newBuilder().setTimeoutMs(30_000).setPassword(ByteString.copyFromUtf8("secret")));
    return new Txns(replicator.propose(open).get(30, TimeUnit.SECONDS).response().getZxid());
  }

  Txn.Builder create(String path) {
    return create(path, ByteString.EMPTY);
  }

  Txn.Builder create(String path, ByteString data) {
    return Txn.newBuilder().setSessionId(sessionId).setRequest(Request.newBuilder()
        .setCreate(CreateRequest.newBuilder().setPath(path).setData(data).setMode(CreateMode.PERSISTENT)));
  }
}
