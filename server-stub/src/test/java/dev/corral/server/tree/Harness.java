package dev.corral.server.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.protobuf.ByteString;
import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.internal.ExpireNode;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.Stat;
import dev.corral.proto.v1.WatchEvent;
import java.util.List;

/** Drives a {@link DataTree} with txns at increasing zxids and a settable entry time. */
final class Harness {
  final DataTree tree;
  long timeMs = 1_000_000;
  /** The rules of the entries to come (a log entry's field, see {@link TreeRules}). */
  TreeRules rules = TreeRules.CURRENT;
  private long logIndex;

  Harness() {
    this(new DataTree());
  }

  Harness(DataTree tree) {
    this.tree = tree;
    this.logIndex = Zxid.logIndex(tree.lastZxid());
  }

  /** The zxid the next txn will get. */
  long nextZxid() {
    return Zxid.of(logIndex + 1, 0);
  }

  TxnResult apply(Txn txn) {
    logIndex++;
    return tree.apply(Zxid.of(logIndex, 0), timeMs, rules, txn);
  }

  /** The attachment token of every session {@link #openSession} opens. */
  static final long OPENING_TOKEN = 7;

  long openSession() {
    return apply(Txn.newBuilder()
            .setOpenSession(OpenSession.newBuilder().setTimeoutMs(6000).setPassword(ByteString.copyFromUtf8("pw"))
                .setAttachment(OPENING_TOKEN))
            .build())
        .response()
        .getZxid();
  }

  TxnResult closeSession(long sessionId) {
    return apply(Txn.newBuilder().setSessionId(sessionId).setCloseSession(CloseSession.getDefaultInstance()).build());
  }

  TxnResult expire(String path, long mzxid) {
    return apply(Txn.newBuilder()
        .setExpireNode(ExpireNode.newBuilder().setPath(path).setMzxid(mzxid))
        .build());
  }

  TxnResult write(long sessionId, Request request) {
    return apply(Txn.newBuilder().setSessionId(sessionId).setRequest(request).build());
  }

  /** Applies a write that must succeed. */
  TxnResult ok(long sessionId, Request request) {
    TxnResult result = write(sessionId, request);
    assertFalse(result.response().hasError(), () -> "unexpected error: " + result.response().getError());
    return result;
  }

  /** Applies a write that must fail with {@code code}; returns the error. */
  Error fails(long sessionId, Request request, ErrorCode code) {
    TxnResult result = write(sessionId, request);
    assertEquals(code, result.response().getError().getCode(), () -> "response: " + result.response());
    assertEquals(List.of(), result.events(), "a failed txn has no events");
    return result.response().getError();
  }

  /** Reads as no session (a session id no session has: get_ephemerals finds none). */
  Response read(Request request) {
    return tree.read(0, request);
  }

  Stat stat(String path) {
    return tree.stat(path).orElseThrow(() -> new AssertionError("no node " + path));
  }

  boolean exists(String path) {
    return tree.stat(path).isPresent();
  }

  /** Events as "TYPE path" strings, checking that all carry the change's zxid. */
  static List<String> events(TxnResult result) {
    for (WatchEvent event : result.events()) {
      assertEquals(result.response().getZxid(), event.getZxid(), () -> "zxid of " + event);
    }
    return result.events().stream().map(e -> e.getType() + " " + e.getPath()).toList();
  }
}
