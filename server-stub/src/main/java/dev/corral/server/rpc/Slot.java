package dev.corral.server.rpc;

import dev.corral.proto.v1.Response;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * One request's place in its session's answer order. The answer is computed
 * when the slot reaches the head of the queue and its gate has completed
 * (a write's proposal, a sync's read index, or nothing for local reads).
 */
record Slot(long xid, CompletableFuture<?> gate, Supplier<Response> answer, Runnable afterSend) {
  static Slot local(long xid, Supplier<Response> answer) {
    return local(xid, answer, () -> { });
  }

  /** A local answer, and {@code afterSend} run once it is sent. */
  static Slot local(long xid, Supplier<Response> answer, Runnable afterSend) {
    return new Slot(xid, CompletableFuture.completedFuture(null), answer, afterSend);
  }

  boolean ready() {
    return gate.isDone();
  }
}
