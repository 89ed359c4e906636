package dev.corral.server.tree;

import static dev.corral.proto.v1.ErrorCode.INVALID_ARGUMENT;
import static dev.corral.proto.v1.ErrorCode.ROLLED_BACK;

import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.MultiRequest;
import dev.corral.proto.v1.MultiResult;
import dev.corral.proto.v1.OpResult;
import dev.corral.proto.v1.Response;
import java.util.List;
import java.util.Locale;

/**
 * Runs the operations of a multi in order against the open change; reads see
 * earlier writes. Stops at the first failure (the caller rolls back). A multi
 * of reads only is not a transaction: as ZooKeeper's multiRead, each read is
 * answered on its own, a failed one with its error in its place.
 */
final class MultiApplier {
  private final TreeState state;
  private final Writer writer;
  private final long zxid;

  MultiApplier(TreeState state, Writer writer, long zxid) {
    this.state = state;
    this.writer = writer;
    this.zxid = zxid;
  }

  Response apply(MultiRequest multi) {
    MultiResult.Builder results = MultiResult.newBuilder();
    List<MultiOp> ops = multi.getOpsList();
    for (int i = 0; i < ops.size(); i++) {
      OpResult result = applyOp(ops.get(i));
      if (result.hasError() && !readsOnly(multi)) { // asked only on a failure: the apply loop's multis write
        return failed(ops, i, result.getError(), zxid);
      }
      results.addResults(result);
    }
    return Response.newBuilder().setZxid(zxid).setMulti(results).build();
  }

  private OpResult applyOp(MultiOp op) {
    return switch (op.getOpCase()) {
      case CREATE -> writer.create(op.getCreate());
      case DELETE -> writer.delete(op.getDelete());
      case SET_DATA -> writer.setData(op.getSetData());
      case CHECK -> writer.check(op.getCheck());
      case GET_CHILDREN -> Reader.getChildren(state, op.getGetChildren().getPath());
      case GET_DATA -> Reader.getData(state, op.getGetData().getPath());
      case EXISTS -> Reader.exists(state, op.getExists().getPath());
      case OP_NOT_SET -> OpResult.newBuilder()
          .setError(Errors.of(INVALID_ARGUMENT, "the operation has no op set, or one this server does not know"))
          .build();
    };
  }

  /** True for a multi of reads only (get_children, get_data, exists), at least one: it changes nothing. */
  static boolean readsOnly(MultiRequest multi) {
    return multi.getOpsCount() > 0 && multi.getOpsList().stream().allMatch(op -> switch (op.getOpCase()) {
      case GET_CHILDREN, GET_DATA, EXISTS -> true;
      default -> false;
    });
  }

  /**
   * Answers a multi of reads only against the state as it stands, as the log
   * would have: every read's result (or its error), at {@code zxid} (the last
   * applied).
   */
  static Response read(TreeState state, MultiRequest multi, long zxid) {
    if (!readsOnly(multi)) {
      throw new IllegalArgumentException("not a multi of reads only");
    }
    return new MultiApplier(state, null, zxid).apply(multi); // reads never reach the writer
  }

  /**
   * The answer to a multi whose operation {@code failed} failed with {@code
   * error}: that error (naming the operation) and every operation's result.
   */
  static Response failed(List<MultiOp> ops, int failed, Error error, long zxid) {
    MultiResult.Builder results = MultiResult.newBuilder();
    for (int i = 0; i < ops.size(); i++) {
      Error own = i == failed ? error : Errors.of(ROLLED_BACK,
          "rolled back because " + describe(failed, ops.get(failed)) + " failed", path(ops.get(i)));
      results.addResults(OpResult.newBuilder().setError(own));
    }
    return Response.newBuilder()
        .setZxid(zxid)
        .setError(Errors.prefixed(describe(failed, ops.get(failed)) + ": ", error))
        .setMulti(results)
        .build();
  }

  /** Names an operation of a multi for messages: "op 2 (delete /a)". */
  static String describe(int index, MultiOp op) {
    String kind = op.getOpCase() == MultiOp.OpCase.OP_NOT_SET
        ? "no op"
        : op.getOpCase().name().toLowerCase(Locale.ROOT);
    String path = PathRules.printable(path(op));
    return "op " + index + " (" + kind + (path.isEmpty() ? "" : " " + path) + ")";
  }

  /** The path an operation of a multi is about ("" if none). */
  static String path(MultiOp op) {
    return switch (op.getOpCase()) {
      case CREATE -> op.getCreate().getPath();
      case DELETE -> op.getDelete().getPath();
      case SET_DATA -> op.getSetData().getPath();
      case CHECK -> op.getCheck().getPath();
      case GET_CHILDREN -> op.getGetChildren().getPath();
      case GET_DATA -> op.getGetData().getPath();
      case EXISTS -> op.getExists().getPath();
      case OP_NOT_SET -> "";
    };
  }
}
