package dev.corral.server;

import static dev.corral.server.Ops.addWatch;
import static dev.corral.server.Ops.bytes;
import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.exists;
import static dev.corral.server.Ops.getChildren;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.multi;
import static dev.corral.server.Ops.ping;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.PathRules;
import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.GetDataRequest;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.SetDataRequest;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.Status;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An answer larger than its client takes is refused with RESPONSE_TOO_LARGE
 * and the stream goes on: gRPC would end the client's stream on it, and the
 * client would lose its connection to every retry (ZooKeeper's clients loop
 * so on a listing over jute.maxbuffer).
 */
class ResponseSizeTest {
  static final int GRPC_DEFAULT_LIMIT = 4 * 1024 * 1024;
  static final int NAME_LENGTH = 1000;
  static final int CHILDREN = 4500; // 4.5 MB of names: over gRPC's default receive limit

  static LiveServer live; // one server for the class: each test has paths of its own

  @BeforeAll
  static void startServer(@TempDir Path dataDir) {
    live = LiveServer.start(dataDir);
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    live.close();
  }

  @Test
  void listingOverGrpcsDefaultLimitIsRefusedAndTheStreamGoesOn() {
    try (RawSession s = live.open()) {
      createChildren(s, "/crowd");

      Error refused = s.error(getChildren("/crowd", false));

      assertEquals(ErrorCode.RESPONSE_TOO_LARGE, refused.getCode());
      assertTrue(refused.getMessage().contains(" " + GRPC_DEFAULT_LIMIT + " "), refused.getMessage());
      s.ok(ping());
      assertEquals(CHILDREN, s.ok(exists("/crowd", false)).getExists().getStat().getNumChildren());
    }
  }

  @Test
  void clientThatTakesLargerMessagesGetsTheWholeListing() {
    int limit = 64 * 1024 * 1024;
    Connect.Builder takesMore = Connect.newBuilder().setTimeoutMs(2000).setMaxMessageBytes(limit);
    try (RawSession s = RawSession.open(live.channel(limit), takesMore)) {
      createChildren(s, "/throng");

      assertEquals(CHILDREN, s.ok(getChildren("/throng", false)).getGetChildren().getChildrenCount());
    }
  }

  @Test
  void writeWhoseAnswerIsTooLargeStillTakesEffect() {
    Connect.Builder takesLittle = Connect.newBuilder().setTimeoutMs(2000).setMaxMessageBytes(8192);
    try (RawSession s = RawSession.open(live.channel(), takesLittle)) {
      s.ok(create("/big", "x".repeat(6000)));
      s.ok(create("/counter", "0"));
      MultiOp readBig = MultiOp.newBuilder().setGetData(GetDataRequest.newBuilder().setPath("/big")).build();
      MultiOp count = MultiOp.newBuilder()
          .setSetData(SetDataRequest.newBuilder().setPath("/counter").setData(bytes("1")).setVersion(0)).build();

      Response answer = s.call(multi(count, readBig, readBig));

      assertEquals(ErrorCode.RESPONSE_TOO_LARGE, answer.getError().getCode());
      assertFalse(answer.hasMulti(), "the answer carries the error alone");
      assertEquals("1", s.ok(getData("/counter", false)).getGetData().getData().toStringUtf8());
      assertEquals(6000, s.ok(getData("/big", false)).getGetData().getData().size(), "an answer that fits is sent");
    }
  }

  @Test
  void clientThatTakesTheLeastStillGetsTheEventOfTheLongestPath() {
    String longest = "/longest/" + "x".repeat(PathRules.MAX_PATH_BYTES - "/longest/".length());
    Connect.Builder takesLeast = Connect.newBuilder().setTimeoutMs(2000).setMaxMessageBytes(8192);
    try (RawSession watcher = RawSession.open(live.channel(), takesLeast); RawSession writer = live.open()) {
      writer.ok(create("/longest", ""));
      watcher.ok(addWatch("/longest", AddWatchMode.PERSISTENT_RECURSIVE_WATCH_MODE));

      writer.ok(create(longest, ""));

      WatchEvent created = watcher.nextEvent();
      assertEquals(EventType.NODE_CREATED, created.getType());
      assertEquals(longest, created.getPath());
      watcher.ok(ping());
    }
  }

  @Test
  void limitTooSmallForAnErrorEndsTheHandshakeWithInvalidArgument() {
    for (int limit : new int[] {-1, 100, 8191}) {
      try (RawSession s = RawSession.stream(live.channel())) {
        s.send(ClientMessage.newBuilder().setConnect(Connect.newBuilder().setMaxMessageBytes(limit)).build());

        Error fatal = s.next().getFatal();
        assertEquals(ErrorCode.INVALID_ARGUMENT, fatal.getCode());
        assertTrue(fatal.getMessage().contains("max_message_bytes is " + limit), fatal.getMessage());
        assertEquals(Status.Code.INVALID_ARGUMENT, s.awaitEnd().status().getCode());
      }
    }
  }

  /** {@link #CHILDREN} children of {@link #NAME_LENGTH}-character names, the creates pipelined. */
  private static void createChildren(RawSession s, String parent) {
    s.ok(create(parent, ""));
    for (int i = 0; i < CHILDREN; i++) {
      s.sendRequest(create(parent + "/" + String.format("%0" + NAME_LENGTH + "d", i), ""));
    }
    for (int i = 0; i < CHILDREN; i++) {
      Response created = s.next().getResponse();
      assertFalse(created.hasError(), created::toString);
    }
  }
}
