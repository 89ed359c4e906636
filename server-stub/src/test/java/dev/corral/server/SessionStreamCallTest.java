package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.exists;
import static dev.corral.server.Ops.ping;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Connected;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.server.rpc.CoordinationService;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The session stream driven call by call, through a fake gRPC call that
 * records what the server sends and how many messages it asks for, over a
 * {@link FakeLog} that applies writes at once on the calling thread.
 */
class SessionStreamCallTest {
  static final int MAX_OUTSTANDING = 8;
  static final int MAX_UNREAD_BYTES = 16 * 1024;

  final ServerCore core = new ServerCore(Clock.systemUTC(), new dev.corral.server.session.SessionTracker(System::nanoTime));
  final CoordinationService service;

  SessionStreamCallTest() {
    core.useReplicator(new FakeLog(core));
    service = new CoordinationService(core, ServerConfig.builder()
        .dataDir(Path.of("unused"))
        .maxOutstandingRequests(MAX_OUTSTANDING)
        .maxUnreadBytes(MAX_UNREAD_BYTES)
        .build());
  }

  @Test
  void requestsArrivingWhileTheClientIsNotReadingWaitForItInOrder() {
    Opened session = openNewSession();
    FakeCall call = session.call();
    assertEquals(1 + MAX_OUTSTANDING, call.requested, "the handshake, then the requests a session may have in flight");

    call.ready = false; // the client's receive window is full: it is not reading
    for (int i = 0; i < 3; i++) {
      session.in().onNext(request(ping().setXid(i + 1)));
    }
    assertEquals(0, call.responses().size(), "not handled while the client does not read");
    assertEquals(1 + MAX_OUTSTANDING, call.requested, "no further request is read while the client is not reading");

    call.ready = true;
    call.onReady.run();
    assertEquals(List.of(1L, 2L, 3L), call.responses().stream().map(m -> m.getResponse().getXid()).toList());
    assertEquals(1 + MAX_OUTSTANDING + 3, call.requested, "once it reads again, the held-back requests are let in");
  }

  @Test
  void aBurstOfReadsWhoseAnswersOutgrowTheCapWaitsForTheClientInsteadOfEndingItsStream() {
    Opened session = openNewSession();
    FakeCall call = session.call();
    session.in().onNext(request(create("/big", "x".repeat(4096)).setXid(1)));

    call.ready = false; // behind on reading, as a client is while the first answers of a burst are on their way
    for (int xid = 2; xid <= 21; xid++) { // 80 KiB of answers, five times the cap
      session.in().onNext(request(Ops.getData("/big", false).setXid(xid)));
    }
    assertFalse(call.closed);
    call.ready = true;
    call.onReady.run();

    assertEquals(21, call.responses().size());
    assertFalse(call.closed, "the client read: " + call.sent.get(call.sent.size() - 1));
  }

  @Test
  void aClientThatStopsReadingHasItsStreamEndedPastTheCapAndKeepsItsSession() {
    Opened session = openNewSession();
    FakeCall call = session.call();
    session.in().onNext(request(create("/busy", "").setXid(1)));
    session.in().onNext(request(Ops.addWatch("/busy", AddWatchMode.PERSISTENT_WATCH_MODE).setXid(2)));
    Opened writer = openNewSession();

    call.ready = false; // the client's receive window is full: it is not reading
    for (int xid = 1; xid <= 5_000 && !call.closed; xid++) { // each change fires the watch: events pile up
      writer.in().onNext(request(setData("/busy", "", -1).setXid(xid)));
    }

    ServerMessage last = call.sent.get(call.sent.size() - 1);
    assertEquals(ErrorCode.CLIENT_NOT_READING, last.getFatal().getCode(), last.toString());
    assertTrue(last.getFatal().getMessage().contains("did not read"), last.getFatal().getMessage());
    assertTrue(call.closed, "the stream ended");
    FakeCall again = open(reattaching(session.connected())).call();
    assertTrue(again.sent.get(0).getConnected().getReattached(), "the session lives on: " + again.sent);
  }

  @Test
  void aClientThatReadsIsSentAnyAmount() {
    Opened session = openNewSession();
    session.in().onNext(request(create("/big", "x".repeat(4096)).setXid(1)));

    for (int xid = 2; xid <= 21; xid++) { // 80 KiB of answers, each read before the next is sent
      session.in().onNext(request(Ops.getData("/big", false).setXid(xid)));
    }

    assertEquals(21, session.call().responses().size());
    assertFalse(session.call().closed);
  }

  @Test
  void aStreamClosedUnderItByGrpcFailsNeitherTheWriteThatFiresItsWatchNorTheServer() {
    Opened watcher = openNewSession();
    watcher.in().onNext(request(exists("/x", true).setXid(1)));
    watcher.call().closedUnderIt = true; // as gRPC does after a send that failed: every later call throws

    Opened writer = openNewSession();
    writer.in().onNext(request(create("/x", "").setXid(1))); // applied, firing the watcher's watch

    FakeCall writerCall = writer.call();
    assertEquals(List.of(), writerCall.sent.stream().filter(ServerMessage::hasFatal).toList());
    assertFalse(writerCall.responses().get(0).getResponse().hasError(), writerCall.responses().toString());
    assertEquals(java.util.Optional.empty(), core.failure(), "the server still serves");
    writer.in().onNext(request(exists("/x", false).setXid(2)));
    assertTrue(writerCall.responses().get(1).getResponse().getExists().hasStat());
  }

  @Test
  void aServerBehindTheClientSaysSoRatherThanThatItsSessionIsGone() {
    FakeCall call = open(Connect.newBuilder()
        .setSessionId(0x7f0000) // a session this server has not applied the creation of (it is behind)
        .setPassword(com.google.protobuf.ByteString.copyFrom(new byte[16]))
        .setLastZxidSeen(core.appliedZxid() + (1L << 16))
        .build()).call();

    assertEquals(ErrorCode.SERVER_BEHIND, call.sent.get(0).getFatal().getCode(), call.sent.toString());
  }

  @Test
  void requestsStillArrivingOnAStreamWhoseSessionMovedAreNotRun() {
    Opened first = openNewSession();
    Connected connected = first.connected();

    Opened second = open(reattaching(connected));
    assertTrue(second.connected().getReattached());
    assertEquals(ErrorCode.SESSION_MOVED, first.call().sent.get(1).getFatal().getCode());

    first.in().onNext(request(create("/late", "").setXid(1))); // was in flight on the old stream
    assertEquals(2, first.call().sent.size(), "nothing more is sent on the ended stream");
    Request existsLate = exists("/late", false).build();
    assertFalse(core.readLocked(() -> core.read(connected.getSessionId(), existsLate)).getExists().hasStat(),
        "the old stream's request did not run on behalf of the session");
  }

  /** A session stream over a fresh fake call: what the test sends in, and what the call recorded. */
  private record Opened(FakeCall call, StreamObserver<ClientMessage> in) {
    /** The handshake's answer (the first message sent). */
    Connected connected() {
      return call.sent.get(0).getConnected();
    }
  }

  /** A stream through the service, {@code connect} sent on it. */
  private Opened open(Connect connect) {
    FakeCall call = new FakeCall();
    StreamObserver<ClientMessage> in = service.session(call);
    in.onNext(connect(connect));
    return new Opened(call, in);
  }

  private Opened openNewSession() {
    return open(Connect.getDefaultInstance());
  }

  private static Connect reattaching(Connected connected) {
    return Connect.newBuilder().setSessionId(connected.getSessionId()).setPassword(connected.getPassword()).build();
  }

  private static ClientMessage connect(Connect connect) {
    return ClientMessage.newBuilder().setConnect(connect).build();
  }

  private static ClientMessage request(Request.Builder request) {
    return ClientMessage.newBuilder().setRequest(request).build();
  }

  /** A server call that records what is sent and requested; its readiness is set by the test. */
  static final class FakeCall extends ServerCallStreamObserver<ServerMessage> {
    final List<ServerMessage> sent = new ArrayList<>();
    volatile boolean ready = true;
    int requested;
    Runnable onReady = () -> { };
    volatile boolean closed;
    /** Set when gRPC closed the call under the server: every later call on it throws. */
    volatile boolean closedUnderIt;

    List<ServerMessage> responses() {
      return sent.stream().filter(ServerMessage::hasResponse).toList();
    }

    @Override
    public synchronized void onNext(ServerMessage message) {
      throwIfClosedUnderIt();
      sent.add(message);
    }

    @Override
    public synchronized void onError(Throwable t) {
      throwIfClosedUnderIt();
      closed = true;
    }

    private void throwIfClosedUnderIt() {
      if (closedUnderIt) {
        throw new IllegalStateException("call is closed");
      }
    }

    @Override
    public synchronized void onCompleted() {
      closed = true;
    }

    @Override
    public boolean isCancelled() {
      return false;
    }

    @Override
    public void setOnCancelHandler(Runnable onCancel) {}

    @Override
    public void setCompression(String compression) {}

    @Override
    public void disableAutoRequest() {}

    @Override
    public void disableAutoInboundFlowControl() {}

    @Override
    public boolean isReady() {
      return ready;
    }

    @Override
    public void setOnReadyHandler(Runnable onReady) {
      this.onReady = onReady;
    }

    @Override
    public synchronized void request(int count) {
      requested += count;
    }

    @Override
    public void setMessageCompression(boolean enable) {}
  }
}
