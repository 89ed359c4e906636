package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.CoordinationGrpc;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.ServerMessage;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad input gets a clear error, and never harms another session. */
class BadInputTest {
  static final int DATA_LIMIT = 1024;
  static final int REQUEST_LIMIT = 64 * 1024;

  @TempDir Path dataDir;
  LiveServer live;
  RawSession bystander;

  @BeforeEach
  void startServer() {
    live = LiveServer.start(dataDir, b -> b.maxDataBytes(DATA_LIMIT).maxRequestBytes(REQUEST_LIMIT));
    bystander = live.open();
    bystander.ok(create("/bystander", "0"));
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    bystanderStillWorks();
    bystander.close();
    live.close();
  }

  private void bystanderStillWorks() {
    assertEquals(1, bystander.ok(setData("/bystander", "1", 0)).getSetData().getStat().getVersion());
  }

  @Test
  void invalidPathsAreAnsweredWithInvalidPathAndTheStreamGoesOn() {
    try (RawSession s = live.open()) {
      for (String path : List.of("relative", "/trailing/", "/empty//segment", "/dot/./x", "/dotdot/..", "/nul\u0000x",
          "/bell\u0007", "")) {
        Error error = s.error(create(path, "x"));
        assertEquals(ErrorCode.INVALID_PATH, error.getCode(), "for path '" + path + "'");
        assertTrue(!error.getMessage().isBlank(), "the message names the rule");
      }
      s.ok(create("/fine", "x"));
    }
  }

  @Test
  void dataOverTheLimitIsRefusedWithDataTooLarge() {
    try (RawSession s = live.open()) {
      s.ok(create("/big", "x"));
      Request.Builder tooBig = Request.newBuilder().setSetData(dev.corral.proto.v1.SetDataRequest.newBuilder()
          .setPath("/big").setData(ByteString.copyFrom(new byte[DATA_LIMIT + 1])).setVersion(-1));
      Error error = s.error(tooBig);
      assertEquals(ErrorCode.DATA_TOO_LARGE, error.getCode());
      assertTrue(error.getMessage().contains(String.valueOf(DATA_LIMIT)), error.getMessage());
      assertEquals(ByteString.copyFromUtf8("x"), s.ok(getData("/big", false)).getGetData().getData());
    }
  }

  @Test
  void badArgumentsAreAnsweredWithInvalidArgument() {
    try (RawSession s = live.open()) {
      assertEquals(ErrorCode.INVALID_ARGUMENT, s.error(create("/ttl", "", CreateMode.PERSISTENT_WITH_TTL)).getCode());
      assertEquals(ErrorCode.INVALID_ARGUMENT, s.error(setData("/x", "", -2)).getCode());
    }
  }

  @Test
  void multiRefusedBeforeTheLogAnswersEveryOperationLikeAFailedMulti() {
    try (RawSession s = live.open()) {
      dev.corral.proto.v1.Response refused = s.call(Ops.multi(
          MultiOp.newBuilder().setCreate(Ops.createOp("/m", "", CreateMode.PERSISTENT)).build(),
          MultiOp.newBuilder().setCreate(Ops.createOp("relative", "", CreateMode.PERSISTENT)).build()));
      assertEquals(ErrorCode.INVALID_PATH, refused.getError().getCode());
      assertTrue(refused.getError().getMessage().contains("op 1"), refused.getError().getMessage());
      assertEquals(List.of(ErrorCode.ROLLED_BACK, ErrorCode.INVALID_PATH),
          refused.getMulti().getResultsList().stream().map(r -> r.getError().getCode()).toList());
    }
  }

  @Test
  void requestBeforeTheHandshakeEndsTheStreamWithAClearError() {
    try (RawSession s = RawSession.stream(live.channel())) {
      s.sendRequest(create("/early", ""));
      ServerMessage fatal = s.next();
      assertEquals(ErrorCode.HANDSHAKE_REQUIRED, fatal.getFatal().getCode());
      Status status = s.awaitEnd().status();
      assertEquals(Status.Code.FAILED_PRECONDITION, status.getCode());
      assertTrue(status.getDescription().contains("HANDSHAKE_REQUIRED"), status.getDescription());
    }
  }

  @Test
  void secondHandshakeOnAStreamEndsIt() {
    try (RawSession s = live.open()) {
      s.send(ClientMessage.newBuilder().setConnect(Connect.getDefaultInstance()).build());
      assertEquals(ErrorCode.HANDSHAKE_REQUIRED, s.next().getFatal().getCode());
    }
  }

  @Test
  void requestWithoutAnOperationEndsTheStream() {
    try (RawSession s = live.open()) {
      s.sendRequest(Request.newBuilder());
      assertEquals(ErrorCode.UNKNOWN_OPERATION, s.next().getFatal().getCode());
      assertEquals(Status.Code.INVALID_ARGUMENT, s.awaitEnd().status().getCode());
    }
  }

  @Test
  void operationFromAFutureProtocolEndsTheStreamAsUnknown() {
    try (RawSession s = live.open()) {
      UnknownFieldSet futureOp = UnknownFieldSet.newBuilder()
          .addField(99, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("?")).build())
          .build();
      s.sendRequest(Request.newBuilder().setUnknownFields(futureOp));
      Error fatal = s.next().getFatal();
      assertEquals(ErrorCode.UNKNOWN_OPERATION, fatal.getCode());
    }
  }

  @Test
  void messageOverTheRequestCapEndsTheStreamWithRequestTooLarge() {
    try (RawSession s = live.open()) {
      s.sendRequest(Request.newBuilder().setCreate(dev.corral.proto.v1.CreateRequest.newBuilder()
          .setPath("/huge").setData(ByteString.copyFrom(new byte[REQUEST_LIMIT * 2]))));
      Error fatal = s.next().getFatal();
      assertEquals(ErrorCode.REQUEST_TOO_LARGE, fatal.getCode());
      assertTrue(fatal.getMessage().contains(String.valueOf(REQUEST_LIMIT)), fatal.getMessage());
      assertEquals(Status.Code.RESOURCE_EXHAUSTED, s.awaitEnd().status().getCode());
    }
  }

  @Test
  void messageFarBeyondTheCapIsCutOffByTheTransport() {
    try (RawSession s = live.open()) {
      s.sendRequest(Request.newBuilder().setCreate(dev.corral.proto.v1.CreateRequest.newBuilder()
          .setPath("/huger").setData(ByteString.copyFrom(new byte[REQUEST_LIMIT * 5]))));
      assertNotEquals(Status.Code.OK, s.awaitEnd().status().getCode());
    }
  }

  @Test
  void malformedBytesEndOnlyThatStreamWithAClearError() throws Exception {
    RawCall call = RawCall.open(live.channel());
    call.send(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01});

    Error fatal = ServerMessage.parseFrom(call.replies.poll(30, TimeUnit.SECONDS)).getFatal();
    assertEquals(ErrorCode.INVALID_ARGUMENT, fatal.getCode());
    assertTrue(fatal.getMessage().contains("could not be decoded"), fatal.getMessage());
    Status status = call.closed.get(30, TimeUnit.SECONDS);
    assertEquals(Status.Code.INVALID_ARGUMENT, status.getCode(), status.toString());
  }

  @Test
  void aPathThatIsNotUtf8IsAProtocolErrorNamingIt() throws Exception {
    RawCall call = RawCall.open(live.channel());
    call.send(ClientMessage.newBuilder().setConnect(Connect.newBuilder().setTimeoutMs(4000)).build().toByteArray());
    assertTrue(ServerMessage.parseFrom(call.replies.poll(30, TimeUnit.SECONDS)).hasConnected());
    byte[] request = ClientMessage.newBuilder().setRequest(create("/x\u00e9", "")).build().toByteArray();
    request[indexOf(request, (byte) 0xc3)] = (byte) 0xff; // the first byte of the e-acute: no longer UTF-8

    call.send(request);

    Error fatal = ServerMessage.parseFrom(call.replies.poll(30, TimeUnit.SECONDS)).getFatal();
    assertEquals(ErrorCode.INVALID_ARGUMENT, fatal.getCode());
    assertTrue(fatal.getMessage().contains("UTF-8"), fatal.getMessage());
    assertEquals(Status.Code.INVALID_ARGUMENT, call.closed.get(30, TimeUnit.SECONDS).getCode());
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    throw new AssertionError("no byte " + b);
  }

  /** A Session call that sends and receives raw bytes, as a client of another language might get them wrong. */
  private record RawCall(ClientCall<byte[], byte[]> call, BlockingQueue<byte[]> replies,
      CompletableFuture<Status> closed) {
    static RawCall open(ManagedChannel channel) {
      MethodDescriptor<byte[], byte[]> raw = MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(CoordinationGrpc.getSessionMethod().getFullMethodName())
          .setRequestMarshaller(new BytesMarshaller())
          .setResponseMarshaller(new BytesMarshaller())
          .build();
      RawCall opened = new RawCall(channel.newCall(raw, CallOptions.DEFAULT), new LinkedBlockingQueue<>(),
          new CompletableFuture<>());
      opened.call.start(new ClientCall.Listener<>() {
        @Override
        public void onMessage(byte[] message) {
          opened.replies.add(message);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          opened.closed.complete(status);
        }
      }, new Metadata());
      opened.call.request(100);
      return opened;
    }

    void send(byte[] message) {
      call.sendMessage(message);
    }
  }

  @Test
  void healthServiceReportsServingAndReflectionListsTheService() throws Exception {
    ManagedChannel channel = live.channel();
    HealthCheckResponse health = HealthGrpc.newBlockingStub(channel)
        .check(HealthCheckRequest.newBuilder().setService("corral.v1.Coordination").build());
    assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.getStatus());

    CompletableFuture<ServerReflectionResponse> listed = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> reflection = ServerReflectionGrpc.newStub(channel)
        .serverReflectionInfo(new StreamObserver<>() {
          @Override
          public void onNext(ServerReflectionResponse value) {
            listed.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            listed.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    reflection.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    List<String> services = listed.get(30, TimeUnit.SECONDS).getListServicesResponse().getServiceList().stream()
        .map(s -> s.getName()).toList();
    reflection.onCompleted();
    assertTrue(services.contains("corral.v1.Coordination"), services.toString());
  }

  private static final class BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
