package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.Stat;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session that re-attaches leaves its earlier stream behind for good: a
 * write still in that stream's pipeline (say, in a member that stalled) is
 * refused when it reaches the log, so the client's re-sent copy is the only
 * one applied, and the late copy cannot undo a later write.
 */
class SessionMoveTest {
  final FakeLogServer server = new FakeLogServer();

  @AfterEach
  void stop() throws InterruptedException {
    server.close();
  }

  @Test
  void aWriteLeftInTheEarlierStreamsPipelineIsRefusedOnceTheSessionReattachedAndChangesNothing() {
    RawSession first = sessionWithAStuckWrite("v1");
    first.breakStream();

    try (RawSession again = reattach(first)) {
      assertTrue(again.next().getConnected().getReattached());
      long before = server.core.digest();
      server.log.releaseWrites(); // the stuck write reaches the log now, after the re-attach
      assertEquals(before, server.core.digest(), "the write left behind changed nothing");

      server.log.holdWrites();
      again.sendRequest(setData("/config", "v1", -1)); // the client re-sends what went unanswered ...
      again.sendRequest(setData("/config", "v2", -1)); // ... then writes on
      awaitHeldWrites(2);
      server.log.releaseWrites();
      Response resent = again.next().getResponse();
      Response later = again.next().getResponse();
      assertEquals(1, resent.getSetData().getStat().getVersion());
      assertEquals(2, later.getSetData().getStat().getVersion());

      Response read = again.ok(getData("/config", false));
      assertEquals("v2", read.getGetData().getData().toStringUtf8());
      Stat stat = read.getGetData().getStat();
      assertEquals(later.getZxid(), stat.getMzxid());
      assertEquals(2, stat.getVersion(), "the write left behind was never applied");
    }
  }

  @Test
  void aWriteWithAnUnknownOutcomeEndsItsStreamSoThatItsLateCopyIsRefusedAfterTheClientRetries() {
    RawSession first = sessionWithAStuckWrite("v1");
    server.log.timeOutHeldWrites();
    assertEquals(ErrorCode.OPERATION_TIMEOUT, first.next().getResponse().getError().getCode());
    assertEquals(ErrorCode.OPERATION_TIMEOUT, first.next().getFatal().getCode(),
        "the stream ends: a retry must come through a new attachment");

    try (RawSession again = reattach(first)) {
      assertTrue(again.next().getConnected().getReattached());
      again.ok(setData("/config", "v1", -1));
      Response later = again.ok(setData("/config", "v2", -1));
      server.log.releaseWrites(); // Raft commits the first copy after all

      Stat stat = again.ok(getData("/config", false)).getGetData().getStat();
      assertEquals(later.getZxid(), stat.getMzxid());
      assertEquals(2, stat.getVersion(), "the late copy was refused");
    }
  }

  @Test
  void aReattachLeftInAStalledPipelineCannotTakeTheSessionBackToItsStream() {
    RawSession first = server.open();
    first.ok(create("/config", "v0"));
    server.log.holdWritesAndReattaches(); // the member the client goes to next stalls
    RawSession stalled = reattach(first);
    assertTrue(stalled.next().getConnected().getReattached(), "answered before its re-attach is in the log");
    stalled.sendRequest(setData("/config", "v1", -1));
    awaitHeldWrites(2);
    server.log.timeOutHeldWrites(); // both stay in the pipeline, their outcome unknown
    stalled.breakStream();

    try (RawSession again = reattach(first)) { // the client goes on through a third stream
      assertTrue(again.next().getConnected().getReattached());
      again.ok(setData("/config", "v1", -1)); // it re-sends what went unanswered ...
      Response later = again.ok(setData("/config", "v2", -1)); // ... then writes on
      server.log.releaseWrites(); // the stalled re-attach and write reach the log after all

      Stat stat = again.ok(getData("/config", false)).getGetData().getStat();
      assertEquals(later.getZxid(), stat.getMzxid(), "the session stayed on this stream, and the late write was refused");
      assertEquals(2, stat.getVersion());
    }
  }

  @Test
  void reattachingEndsTheSessionsEarlierStreamWithSessionMoved() {
    RawSession first = server.open();
    first.ok(create("/a", ""));
    try (RawSession again = reattach(first)) {
      assertTrue(again.next().getConnected().getReattached());
      ServerMessage last = first.next();
      assertEquals(ErrorCode.SESSION_MOVED, last.getFatal().getCode());
      again.ok(setData("/a", "still mine", -1));
    }
  }

  /** A session that created /config ("v0") and whose setData of {@code data} is stuck in the pipeline, unanswered. */
  private RawSession sessionWithAStuckWrite(String data) {
    RawSession session = server.open();
    session.ok(create("/config", "v0"));
    server.log.holdWrites();
    session.sendRequest(setData("/config", data, -1));
    awaitHeldWrites(1);
    return session;
  }

  private RawSession reattach(RawSession earlier) {
    return RawSession.reattach(server.channel(), earlier.sessionId(), earlier.connected().getPassword(), 0);
  }

  private void awaitHeldWrites(int count) {
    await().atMost(Duration.ofSeconds(RawSession.WAIT_SECONDS)).until(() -> server.log.heldWrites() == count);
  }
}
