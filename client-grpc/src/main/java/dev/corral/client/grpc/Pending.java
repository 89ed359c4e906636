package dev.corral.client.grpc;

import dev.corral.client.CoordinationException;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.Request;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * A request waiting for its answer. Its answer hook (watch registration) runs on
 * the receiving thread, in stream order; its future is completed as its
 * {@link Delivery} says, never before a watch event received ahead of the answer
 * has been delivered, except for {@link Delivery#DIRECT} (internal requests, and
 * calls made from the event thread itself, which would otherwise wait on themselves).
 */
final class Pending {
  private final Request request;
  private final Consumer<Response> onAnswer;
  private final Delivery delivery;
  private final CompletableFuture<Response> future = new CompletableFuture<>();
  private long xid;
  private ScheduledFuture<?> timeout;

  Pending(Request request, Consumer<Response> onAnswer, Delivery delivery) {
    this.request = request;
    this.onAnswer = onAnswer;
    this.delivery = delivery;
  }

  Request request() {
    return request;
  }

  CompletableFuture<Response> future() {
    return future;
  }

  long xid() {
    return xid;
  }

  void xid(long xid) {
    this.xid = xid;
  }

  /** The timer failing this request if no connection comes in time. */
  void timeout(ScheduledFuture<?> timeout) {
    this.timeout = timeout;
  }

  void cancelTimeout() {
    if (timeout != null) {
      timeout.cancel(false);
      timeout = null;
    }
  }

  void answer(Response response, EventQueue events) {
    try {
      onAnswer.accept(response);
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(Pending.class).error("Handling the answer to xid {} failed", xid, e);
    }
    complete(() -> future.complete(response), events);
  }

  void fail(CoordinationException failure, EventQueue events) {
    cancelTimeout();
    complete(() -> future.completeExceptionally(failure), events);
  }

  private void complete(Runnable completion, EventQueue events) {
    switch (delivery) {
      case DIRECT -> completion.run();
      case AWAITED -> events.executeNowIfIdle(completion);
      case QUEUED -> events.execute(completion);
    }
  }
}
