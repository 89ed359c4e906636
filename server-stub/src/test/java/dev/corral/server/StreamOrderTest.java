package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.exists;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.Request;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.SyncRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The order and zxids of what one session is sent, with changes and syncs timed by the test. */
class StreamOrderTest {
  final FakeLogServer server = new FakeLogServer();

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  @Test
  void writeAnsweredBehindASlowSyncCarriesNoLowerZxidThanWhatTheSessionWasSentBefore() {
    try (RawSession a = server.open(); RawSession b = server.open()) {
      a.ok(exists("/later", true));
      b.ok(exists("/mine", true));
      server.log.holdSyncs();

      a.sendRequest(Request.newBuilder().setSync(SyncRequest.newBuilder().setPath("/")));
      a.sendRequest(create("/mine", ""));
      assertEquals(EventType.NODE_CREATED, b.nextEvent().getType(), "a's create is applied, its answer waits");
      b.ok(create("/later", ""));
      server.log.releaseSyncs();

      List<ServerMessage> received = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        received.add(a.next());
      }
      assertTrue(received.get(0).hasEvent(), "the event of the later change came first: " + received);
      long highest = 0;
      for (ServerMessage message : received) {
        long zxid = message.hasEvent() ? message.getEvent().getZxid() : message.getResponse().getZxid();
        if (message.hasResponse()) {
          assertTrue(zxid >= highest, "response zxid " + zxid + " is below " + highest + " already sent: " + received);
        }
        highest = Math.max(highest, zxid);
      }
    }
  }
}
