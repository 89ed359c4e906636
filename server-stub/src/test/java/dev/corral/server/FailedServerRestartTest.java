package dev.corral.server;

import static dev.corral.server.Ops.bytes;
import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.internal.CloseSession;
import dev.corral.proto.v1.AdminGrpc;
import dev.corral.proto.v1.ClientMessage;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.StatusRequest;
import dev.corral.proto.v1.WatchEvent;
import dev.corral.server.session.SessionSink;
import dev.corral.server.watch.WatchKind;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that stopped applying the log halfway through an entry (its tree
 * holds part of it) keeps no snapshot of that tree when it shuts down, and
 * restarts from its log with the entry applied once.
 */
class FailedServerRestartTest {
  @TempDir Path dataDir;

  @Test
  void aServerThatFailedMidEntryRestartsFromItsLog() throws Exception {
    try (LiveServer live = LiveServer.start(dataDir)) {
      try (RawSession writer = live.open(); RawSession watcher = live.open()) {
        writer.ok(create("/watched", "v1"));
        ServerCore core = live.server().core();
        // a stream whose every call fails: the apply fails after the tree took the write
        core.attachNew(watcher.sessionId(), new FailingSink());
        core.watches().add(watcher.sessionId(), WatchKind.PERSISTENT, "/watched");

        writer.send(ClientMessage.newBuilder().setRequest(setData("/watched", "v2", -1)).build());

        await().atMost(Duration.ofSeconds(30)).until(() -> core.failure().isPresent());
        MemberStatus status = AdminGrpc.newBlockingStub(live.channel()).status(StatusRequest.getDefaultInstance());
        assertTrue(status.getFailure().contains("a stream that fails"), "the admin view says why: " + status);
      }
    } // shuts down: no snapshot of the half-applied tree

    try (LiveServer restarted = LiveServer.start(dataDir); RawSession reader = restarted.open()) {
      Response read = reader.ok(getData("/watched", false));
      assertEquals(bytes("v2"), read.getGetData().getData(), "the write reached the log before the failure");
      assertEquals(1, read.getGetData().getStat().getVersion(), "and was applied once");
      assertEquals("", AdminGrpc.newBlockingStub(restarted.channel())
          .status(StatusRequest.getDefaultInstance()).getFailure());
    }
  }

  /** A session's stream that throws on every call, as a bug in one would. */
  private static final class FailingSink implements SessionSink {
    @Override
    public void event(WatchEvent event) {
      throw new IllegalStateException("a stream that fails");
    }

    @Override
    public void sessionClosed(CloseSession.Reason reason) {
      throw new IllegalStateException("a stream that fails");
    }

    @Override
    public void moved() {
      throw new IllegalStateException("a stream that fails");
    }

    @Override
    public long attachment() {
      return 1;
    }

    @Override
    public void serverStopped(String why) {}
  }
}
