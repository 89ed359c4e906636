package dev.corral.client.grpc;

import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.ServerMessage;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A test interceptor on the client's channels: counts the operations sent, drops
 * one chosen server message, cuts the current stream and refuses new ones.
 */
final class FaultInjector implements ClientInterceptor {
  private final AtomicInteger operationsSent = new AtomicInteger();
  private final AtomicReference<ClientCall<?, ?>> current = new AtomicReference<>();
  private final AtomicReference<Predicate<ServerMessage>> dropOnce = new AtomicReference<>();
  private final CompletableFuture<ServerMessage> dropped = new CompletableFuture<>();
  private final AtomicReference<ClientCall<?, ?>> silenced = new AtomicReference<>();
  private final AtomicReference<Predicate<ServerMessage>> cutOnArrival = new AtomicReference<>();
  private volatile boolean refusing;

  /** Requests sent other than pings. */
  int operationsSent() {
    return operationsSent.get();
  }

  /** Drops the first server message matching {@code which}; {@link #dropped()} completes with it. */
  void dropOnce(Predicate<ServerMessage> which) {
    dropOnce.set(which);
  }

  CompletableFuture<ServerMessage> dropped() {
    return dropped;
  }

  /** Breaks the current stream, as a network failure would. */
  void cutStream() {
    ClientCall<?, ?> call = current.get();
    if (call != null) {
      call.cancel("the test cut the stream", null);
    }
  }

  /** From now on, the current stream delivers nothing more from the server (a silent, hung connection). */
  void silenceCurrentStream() {
    silenced.set(current.get());
  }

  /**
   * Cuts the stream on which the first server message matching {@code which}
   * arrives, then hands the message on (the client reads it from a stream already
   * dead), and refuses new streams from then on.
   */
  void cutOnArrivalOf(Predicate<ServerMessage> which) {
    cutOnArrival.set(which);
  }

  /** While true, every new stream fails at once with UNAVAILABLE. */
  void refuseNewStreams(boolean refuse) {
    refusing = refuse;
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions, Channel next) {
    if (refusing) {
      return new Refused<>();
    }
    return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, callOptions)) {
      @Override
      public void start(Listener<RespT> listener, Metadata headers) {
        ClientCall<ReqT, RespT> self = this;
        current.set(self);
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
          @Override
          public void onMessage(RespT message) {
            if (silenced.get() == self) {
              self.request(1);
              return;
            }
            Predicate<ServerMessage> cut = cutOnArrival.get();
            if (cut != null && cut.test((ServerMessage) message) && cutOnArrival.compareAndSet(cut, null)) {
              refusing = true;
              self.cancel("the test cut the stream", null);
              super.onMessage(message);
              return;
            }
            Predicate<ServerMessage> which = dropOnce.get();
            if (which != null && which.test((ServerMessage) message) && dropOnce.compareAndSet(which, null)) {
              self.request(1);
              dropped.complete((ServerMessage) message);
              return;
            }
            super.onMessage(message);
          }
        }, headers);
      }

      @Override
      public void sendMessage(ReqT message) {
        ClientMessage sent = (ClientMessage) message;
        if (sent.hasRequest() && sent.getRequest().getOpCase() != Request.OpCase.PING) {
          operationsSent.incrementAndGet();
        }
        super.sendMessage(message);
      }
    };
  }

  /** A call that fails as soon as it starts (asynchronously, as gRPC would). */
  private static final class Refused<ReqT, RespT> extends ClientCall<ReqT, RespT> {
    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      CompletableFuture.runAsync(() -> listener.onClose(
          Status.UNAVAILABLE.withDescription("refused by the test"), new Metadata()));
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void halfClose() {}

    @Override
    public void sendMessage(ReqT message) {}
  }
}
