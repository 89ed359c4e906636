package dev.corral.server.tree;

import static dev.corral.proto.v1.ErrorCode.INVALID_ARGUMENT;
import static dev.corral.proto.v1.ErrorCode.SESSION_EXPIRED;
import static dev.corral.proto.v1.ErrorCode.SESSION_MOVED;

import dev.corral.proto.internal.ExpireNode;
import dev.corral.proto.internal.OpenSession;
import dev.corral.proto.internal.Txn;
import dev.corral.proto.v1.CloseSessionResult;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import java.util.ArrayList;
import java.util.List;

/** Applies one txn to a {@link TreeState} at one zxid. Used once, then dropped. */
final class Applier {
  private final TreeState state;
  private final long zxid;
  private final long timeMs;
  private final TreeRules rules;

  Applier(TreeState state, long zxid, long timeMs, TreeRules rules) {
    this.state = state;
    this.zxid = zxid;
    this.timeMs = timeMs;
    this.rules = rules;
  }

  TxnResult apply(Txn txn) {
    Error refused = actsForASession(txn) ? refusal(txn) : null;
    if (refused != null) {
      return failed(refused);
    }
    return switch (txn.getKindCase()) {
      case REQUEST -> request(txn);
      case OPEN_SESSION -> openSession(txn.getOpenSession());
      case ATTACH_SESSION -> attachSession(txn);
      case CLOSE_SESSION -> closeSession(txn);
      case EXPIRE_NODE -> expireNode(txn.getExpireNode());
      case KIND_NOT_SET -> failed(Errors.of(INVALID_ARGUMENT, "the txn has no kind"));
    };
  }

  private static boolean actsForASession(Txn txn) {
    return switch (txn.getKindCase()) {
      case REQUEST, ATTACH_SESSION, CLOSE_SESSION -> true;
      case OPEN_SESSION, EXPIRE_NODE, KIND_NOT_SET -> false;
    };
  }

  /**
   * Why a change on behalf of the txn's session cannot apply: the session is
   * gone, or it was re-attached since the stream the change came through.
   */
  private Error refusal(Txn txn) {
    SessionRecord session = state.session(txn.getSessionId());
    if (session == null) {
      return unknownSession(txn.getSessionId());
    }
    if (txn.getAttachment() != 0 && txn.getAttachment() != session.attachment()) {
      return Errors.of(SESSION_MOVED, "session 0x" + Long.toHexString(txn.getSessionId())
          + " was re-attached through another stream after this change was sent; not applied");
    }
    return null;
  }

  private TxnResult request(Txn txn) {
    long sessionId = txn.getSessionId();
    Request request = txn.getRequest();
    Writer writer = new Writer(state, zxid, timeMs, rules, sessionId);
    state.begin();
    Response response;
    try {
      response = write(writer, request);
    } catch (RuntimeException bug) {
      state.rollback();
      throw bug;
    }
    if (response.hasError()) {
      state.rollback();
      return new TxnResult(response, List.of());
    }
    writer.removeEmptiedContainers();
    state.commit();
    return new TxnResult(response, writer.events());
  }

  private Response write(Writer writer, Request request) {
    return switch (request.getOpCase()) {
      case CREATE -> Responses.single(zxid, writer.create(request.getCreate()));
      case DELETE -> Responses.single(zxid, writer.delete(request.getDelete()));
      case SET_DATA -> Responses.single(zxid, writer.setData(request.getSetData()));
      case MULTI -> new MultiApplier(state, writer, zxid).apply(request.getMulti());
      default -> response(Errors.of(INVALID_ARGUMENT,
          "operation " + request.getOpCase() + " cannot be applied through the log"));
    };
  }

  private TxnResult openSession(OpenSession open) {
    state.addSession(new SessionRecord(zxid, open.getTimeoutMs(), open.getPassword(), open.getAttachment()));
    return new TxnResult(Response.newBuilder().setZxid(zxid).build(), List.of());
  }

  private TxnResult attachSession(Txn txn) {
    state.addSession(state.session(txn.getSessionId()).attachedTo(txn.getAttachSession().getAttachment()));
    return new TxnResult(Response.newBuilder().setZxid(zxid).build(), List.of());
  }

  private TxnResult closeSession(Txn txn) {
    long sessionId = txn.getSessionId();
    Writer writer = new Writer(state, zxid, timeMs, rules, sessionId);
    List<String> owned = new ArrayList<>(state.ephemeralPaths(sessionId));
    owned.sort(Paths.UTF8_ORDER);
    owned.forEach(writer::remove);
    writer.removeEmptiedContainers();
    state.removeSession(sessionId);
    Response response = Response.newBuilder()
        .setZxid(zxid)
        .setCloseSession(CloseSessionResult.getDefaultInstance())
        .build();
    return new TxnResult(response, writer.events());
  }

  private TxnResult expireNode(ExpireNode expire) {
    Node node = state.node(expire.getPath());
    Writer writer = new Writer(state, zxid, timeMs, rules, 0);
    if (node != null && node.mzxid() == expire.getMzxid() && node.ttlExpired(timeMs)) {
      writer.remove(expire.getPath());
      writer.removeEmptiedContainers();
    }
    return new TxnResult(Response.newBuilder().setZxid(zxid).build(), writer.events());
  }

  private TxnResult failed(Error error) {
    return new TxnResult(response(error), List.of());
  }

  private Response response(Error error) {
    return Response.newBuilder().setZxid(zxid).setError(error).build();
  }

  private static Error unknownSession(long sessionId) {
    return Errors.of(SESSION_EXPIRED, "session 0x" + Long.toHexString(sessionId) + " does not exist");
  }
}
