package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.Connect;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Error;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.ServerMessage;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random messages built from the protocol's own descriptors, sent on streams of
 * their own: every answer is a clear one (a code that is not INTERNAL, and a
 * message), every stream ends, another session goes on unharmed, and what the
 * fuzzed sessions wrote is read back from the log and snapshot as it was.
 */
class ProtocolFuzzTest {
  private static final int STREAMS = 300;
  private static final long SEED = 20261127L;
  private static final int DATA_LIMIT = 16 * 1024;
  private static final int REQUEST_LIMIT = 64 * 1024;

  @TempDir Path dataDir;

  @Test
  void randomMessagesGetClearAnswersHarmNoOtherSessionAndSurviveARestart() throws Exception {
    CorralServer server = start();
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    try {
      RawSession bystander = RawSession.open(channel, 10_000);
      bystander.ok(create("/bystander", "0"));
      bystander.ok(create("/bystander-own", "0", CreateMode.EPHEMERAL));
      RandomMessages messages = new RandomMessages(SEED);
      for (int i = 0; i < STREAMS; i++) {
        fuzzOneStream(channel, messages, i);
        if (i % 25 == 0) { // the bystander still reads what it wrote, and writes
          assertEquals(ByteString.copyFromUtf8("0"), bystander.ok(getData("/bystander", false)).getGetData().getData());
          bystander.ok(setData("/bystander", "0", -1));
        }
      }
      assertEquals(bystander.sessionId(),
          bystander.ok(getData("/bystander-own", false)).getGetData().getStat().getEphemeralOwner());
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
      server.close();
    }
    long zxidAtClose = server.core().lastZxid();
    long digestAtClose = server.core().digest();

    CorralServer restarted = start();
    try {
      assertEquals(zxidAtClose, restarted.core().lastZxid(), "the restarted server is where the first one stopped");
      assertEquals(digestAtClose, restarted.core().digest(), "and holds the same tree");
    } finally {
      restarted.close();
    }
  }

  /** A second of tick (sessions of 2 s at least) and no TTL sweep: nothing changes by itself across the restart. */
  private CorralServer start() {
    ServerConfig config = ServerConfig.builder().port(0).dataDir(dataDir).tick(Duration.ofSeconds(1))
        .ttlCheckInterval(Duration.ofHours(1)).maxDataBytes(DATA_LIMIT).maxRequestBytes(REQUEST_LIMIT).build();
    return CorralServer.start(config, NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)));
  }

  /** Mostly a handshake and random requests; sometimes anything at all. Closes the stream and checks every answer. */
  private static void fuzzOneStream(ManagedChannel channel, RandomMessages messages, int index) {
    Random random = messages.random();
    List<ClientMessage> sent = new ArrayList<>();
    RawSession stream = RawSession.stream(channel);
    if (random.nextInt(10) < 7) {
      Connect.Builder connect = Connect.newBuilder().setTimeoutMs(random.nextInt(5) == 0 ? random.nextInt() : 4_000);
      if (random.nextInt(8) == 0) {
        connect.setSessionId(random.nextLong()).setLastZxidSeen(random.nextLong());
      }
      sent.add(ClientMessage.newBuilder().setConnect(connect).build());
      for (int i = 1 + random.nextInt(6); i > 0; i--) {
        sent.add(messages.requestMessage());
      }
    } else {
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        sent.add(messages.anyMessage());
      }
    }
    for (ClientMessage message : sent) {
      stream.send(message);
    }
    stream.close();

    String what = "stream " + index + " of seed " + SEED + ", first message " + shortly(sent.get(0));
    while (true) {
      Object item = stream.poll();
      if (item instanceof RawSession.End end) {
        assertFalse(end.status().getCode() == Status.Code.INTERNAL || end.status().getCode() == Status.Code.UNKNOWN,
            what + ": ended " + end.status());
        return;
      }
      ServerMessage message = (ServerMessage) item;
      if (message.hasFatal()) {
        assertClear(message.getFatal(), what);
      }
      if (message.hasResponse() && message.getResponse().hasError()) {
        assertClear(message.getResponse().getError(), what);
      }
    }
  }

  private static void assertClear(Error error, String what) {
    assertNotEquals(ErrorCode.INTERNAL, error.getCode(), what + ": " + error.getMessage());
    assertNotEquals(ErrorCode.UNRECOGNIZED, error.getCode(), what);
    assertNotEquals(ErrorCode.OK, error.getCode(), what + ": an error without a code");
    assertFalse(error.getMessage().isBlank(), what + ": " + error.getCode() + " without a message");
  }

  private static String shortly(ClientMessage message) {
    String text = TextFormat.shortDebugString(message);
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }
}
