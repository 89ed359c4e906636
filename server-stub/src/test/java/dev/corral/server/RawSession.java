package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.CoordinationGrpc;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session over the raw protocol, as a client in another language would
 * speak it: every server message lands in one queue, in arrival order.
 */
final class RawSession implements AutoCloseable {
  static final long WAIT_SECONDS = 30;

  private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
  private final StreamObserver<ClientMessage> requests;
  private final AtomicLong xids = new AtomicLong();
  private Connected connected;

  /** A marker for the stream's end: {@code status} is OK for a normal completion. */
  record End(Status status) {}

  private RawSession(ManagedChannel channel) {
    requests = CoordinationGrpc.newStub(channel).session(new StreamObserver<>() {
      @Override
      public void onNext(ServerMessage message) {
        received.add(message);
      }

      @Override
      public void onError(Throwable t) {
        received.add(new End(Status.fromThrowable(t)));
      }

      @Override
      public void onCompleted() {
        received.add(new End(Status.OK));
      }
    });
  }

  /** Opens a stream without a handshake. */
  static RawSession stream(ManagedChannel channel) {
    return new RawSession(channel);
  }

  /** Opens a new session with the requested timeout. */
  static RawSession open(ManagedChannel channel, int timeoutMs) {
    return open(channel, Connect.newBuilder().setTimeoutMs(timeoutMs));
  }

  /** Opens a new session with this handshake. */
  static RawSession open(ManagedChannel channel, Connect.Builder connect) {
    RawSession session = new RawSession(channel);
    session.send(ClientMessage.newBuilder().setConnect(connect).build());
    session.connected = session.next().getConnected();
    assertNotNull(session.connected);
    return session;
  }

  /** Re-attaches {@code sessionId}; returns the first server message (Connected or fatal). */
  static RawSession reattach(ManagedChannel channel, long sessionId, ByteString password, long lastZxidSeen) {
    RawSession session = new RawSession(channel);
    session.send(ClientMessage.newBuilder().setConnect(Connect.newBuilder()
        .setSessionId(sessionId).setPassword(password).setLastZxidSeen(lastZxidSeen)).build());
    return session;
  }

  Connected connected() {
    return connected;
  }

  long sessionId() {
    return connected.getSessionId();
  }

  void send(ClientMessage message) {
    requests.onNext(message);
  }

  /** Sends a request with the next xid and returns that xid. */
  long sendRequest(Request.Builder request) {
    long xid = xids.incrementAndGet();
    send(ClientMessage.newBuilder().setRequest(request.setXid(xid)).build());
    return xid;
  }

  /** Sends a request and waits for its response, skipping nothing: events before it fail the call. */
  Response call(Request.Builder request) {
    long xid = sendRequest(request);
    ServerMessage message = next();
    if (!message.hasResponse()) {
      fail("expected the response to xid " + xid + " but got " + message);
    }
    assertEquals(xid, message.getResponse().getXid(), "responses come in request order");
    return message.getResponse();
  }

  /** Sends a request that must succeed. */
  Response ok(Request.Builder request) {
    Response response = call(request);
    if (response.hasError()) {
      fail("expected success but got " + response.getError());
    }
    return response;
  }

  /** Sends a request that must fail; returns its error. */
  Error error(Request.Builder request) {
    Response response = call(request);
    if (!response.hasError()) {
      fail("expected an error but got " + response);
    }
    return response.getError();
  }

  /** The next server message. */
  ServerMessage next() {
    Object item = poll();
    if (item instanceof End end) {
      fail("the stream ended: " + end.status());
    }
    return (ServerMessage) item;
  }

  /** The next watch event. */
  WatchEvent nextEvent() {
    ServerMessage message = next();
    if (!message.hasEvent()) {
      fail("expected a watch event but got " + message);
    }
    return message.getEvent();
  }

  /** Waits for the stream's end, returning what came before it last (a fatal error, if any). */
  End awaitEnd() {
    while (true) {
      Object item = poll();
      if (item instanceof End end) {
        return end;
      }
    }
  }

  /** Messages received and not yet taken. */
  int pending() {
    return received.size();
  }

  Object poll() {
    try {
      Object item = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      if (item == null) {
        fail("nothing received within " + WAIT_SECONDS + " s");
      }
      return item;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Breaks the stream without closing the session (as a network failure would). */
  void breakStream() {
    requests.onError(Status.CANCELLED.withDescription("test broke the stream").asRuntimeException());
  }

  @Override
  public void close() {
    try {
      requests.onCompleted();
    } catch (RuntimeException ignored) {
      // already ended
    }
  }
}
