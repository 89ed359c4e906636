package dev.corral.server;

import static dev.corral.server.Ops.bytes;
import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.createOp;
import static dev.corral.server.Ops.delete;
import static dev.corral.server.Ops.exists;
import static dev.corral.server.Ops.getChildren;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.AddWatchMode;
import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.ErrorCode;
import dev.corral.proto.v1.EventType;
import dev.corral.proto.v1.ExistsRequest;
import dev.corral.proto.v1.GetChildrenRequest;
import dev.corral.proto.v1.MultiOp;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.proto.v1.Stat;
import dev.corral.proto.v1.WatchEvent;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions, reads, writes and watches over real gRPC on loopback. */
class SessionEndToEndTest {
  @TempDir Path dataDir;
  LiveServer live;

  @BeforeEach
  void startServer() {
    live = LiveServer.start(dataDir);
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    live.close();
  }

  @Test
  void createdNodeReadsBackWithFullStat() {
    try (RawSession s = live.open()) {
      Response created = s.ok(create("/a", "hello"));
      assertEquals("/a", created.getCreate().getPath());
      Response read = s.ok(getData("/a", false));
      assertEquals(bytes("hello"), read.getGetData().getData());
      Stat stat = read.getGetData().getStat();
      assertEquals(created.getZxid(), stat.getCzxid());
      assertEquals(created.getZxid(), stat.getMzxid());
      assertEquals(5, stat.getDataLength());
      assertEquals(0, stat.getVersion());
      assertTrue(stat.getCtime() > 0);
      assertEquals(stat.getCtime(), stat.getMtime());
      assertTrue(read.getZxid() >= created.getZxid(), "a read is answered at a zxid at least the write's");
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInRequestOrder() {
    try (RawSession s = live.open()) {
      List<Long> sent = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        sent.add(s.sendRequest(i % 3 == 0 ? create("/p" + i, "x") : getData("/p" + (i - i % 3), false)));
      }
      long lastZxid = 0;
      for (long xid : sent) {
        Response response = s.next().getResponse();
        assertEquals(xid, response.getXid());
        assertFalse(response.hasError(), "a read after its write sees the write: " + response.getError());
        assertTrue(response.getZxid() >= lastZxid, "zxids never go back within a session");
        lastZxid = response.getZxid();
      }
    }
  }

  @Test
  void watchEventArrivesBeforeTheReadThatShowsTheChange() {
    try (RawSession watcher = live.open(); RawSession writer = live.open()) {
      writer.ok(create("/w", "v0"));
      watcher.ok(getData("/w", true));
      Response written = writer.ok(setData("/w", "v1", -1));

      long readXid = watcher.sendRequest(getData("/w", false));
      ServerMessage first = watcher.next();
      assertTrue(first.hasEvent(), "the event comes first, got " + first);
      assertEquals(EventType.NODE_DATA_CHANGED, first.getEvent().getType());
      assertEquals("/w", first.getEvent().getPath());
      assertEquals(written.getZxid(), first.getEvent().getZxid());
      Response read = watcher.next().getResponse();
      assertEquals(readXid, read.getXid());
      assertEquals(bytes("v1"), read.getGetData().getData());
    }
  }

  @Test
  void ownWriteFiresOwnWatchBeforeItsResponse() {
    try (RawSession s = live.open()) {
      s.ok(create("/own", "a"));
      s.ok(exists("/own", true));
      long xid = s.sendRequest(setData("/own", "b", 0));
      WatchEvent event = s.nextEvent();
      assertEquals(EventType.NODE_DATA_CHANGED, event.getType());
      Response response = s.next().getResponse();
      assertEquals(xid, response.getXid());
      assertEquals(event.getZxid(), response.getZxid());
    }
  }

  @Test
  void oneShotWatchFiresOnceAndPersistentWatchKeepsFiring() {
    try (RawSession watcher = live.open(); RawSession writer = live.open()) {
      writer.ok(create("/once", "0"));
      watcher.ok(getData("/once", true));
      watcher.ok(Ops.addWatch("/tree", AddWatchMode.PERSISTENT_RECURSIVE_WATCH_MODE));
      writer.ok(setData("/once", "1", -1));
      writer.ok(setData("/once", "2", -1));
      writer.ok(create("/tree", ""));
      writer.ok(create("/tree/a", ""));
      writer.ok(setData("/tree/a", "x", -1));
      writer.ok(delete("/tree/a", -1));

      assertEquals(EventType.NODE_DATA_CHANGED, watcher.nextEvent().getType());
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        WatchEvent e = watcher.nextEvent();
        seen.add(e.getType() + " " + e.getPath());
      }
      assertEquals(List.of("NODE_CREATED /tree", "NODE_CREATED /tree/a", "NODE_DATA_CHANGED /tree/a",
          "NODE_DELETED /tree/a"), seen);
      watcher.ok(Ops.ping());
      assertEquals(0, watcher.pending(), "the one-shot watch fired only once");
    }
  }

  @Test
  void childWatchAndExistsWatchOnMissingNodeFire() {
    try (RawSession watcher = live.open(); RawSession writer = live.open()) {
      writer.ok(create("/parent", ""));
      watcher.ok(getChildren("/parent", true));
      Response missing = watcher.ok(exists("/parent/kid", true));
      assertFalse(missing.getExists().hasStat());
      writer.ok(create("/parent/kid", ""));
      List<String> seen = List.of(watcher.nextEvent(), watcher.nextEvent()).stream()
          .map(e -> e.getType() + " " + e.getPath()).sorted().toList();
      assertEquals(List.of("NODE_CHILDREN_CHANGED /parent", "NODE_CREATED /parent/kid"), seen);
    }
  }

  @Test
  void multiMixesReadsAndWritesAtOnePoint() {
    try (RawSession s = live.open()) {
      s.ok(create("/locks", ""));
      Response multi = s.ok(Ops.multi(
          MultiOp.newBuilder().setCreate(createOp("/locks/lock-", "", CreateMode.EPHEMERAL_SEQUENTIAL)).build(),
          MultiOp.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath("/locks")).build()));
      String created = multi.getMulti().getResults(0).getCreate().getPath();
      assertEquals("/locks/lock-0000000000", created);
      assertEquals(List.of("lock-0000000000"), multi.getMulti().getResults(1).getGetChildren().getChildrenList());
    }
  }

  @Test
  void multiOfReadsOnlyIsAnsweredWithoutARoundOfTheLog() {
    try (RawSession s = live.open()) {
      s.ok(create("/reads", ""));
      Response last = s.ok(create("/reads/a", "x"));
      Response reads = s.ok(Ops.multi(
          MultiOp.newBuilder().setGetChildren(GetChildrenRequest.newBuilder().setPath("/reads")).build(),
          MultiOp.newBuilder().setExists(ExistsRequest.newBuilder().setPath("/reads/a")).build()));
      assertEquals(List.of("a"), reads.getMulti().getResults(0).getGetChildren().getChildrenList());
      assertEquals(last.getCreate().getStat().getCzxid(), reads.getMulti().getResults(1).getExists().getStat().getCzxid());
      assertEquals(last.getZxid(), reads.getZxid(), "answered at the last applied zxid: no txn of its own");
    }
  }

  @Test
  void failedMultiChangesNothingAndNamesTheFailingOp() {
    try (RawSession s = live.open()) {
      Response failed = s.call(Ops.multi(
          MultiOp.newBuilder().setCreate(createOp("/m1", "", CreateMode.PERSISTENT)).build(),
          MultiOp.newBuilder().setDelete(dev.corral.proto.v1.DeleteRequest.newBuilder().setPath("/nope").setVersion(-1)).build()));
      assertEquals(ErrorCode.NO_NODE, failed.getError().getCode());
      assertEquals(ErrorCode.ROLLED_BACK, failed.getMulti().getResults(0).getError().getCode());
      assertEquals(ErrorCode.NO_NODE, failed.getMulti().getResults(1).getError().getCode());
      assertFalse(s.ok(exists("/m1", false)).getExists().hasStat());
    }
  }

  @Test
  void ttlNodeIsDeletedByTheServerOnceItsTtlPassesUnchanged() {
    try (RawSession s = live.open()) {
      s.ok(dev.corral.proto.v1.Request.newBuilder().setCreate(createOp("/ttl", "", CreateMode.PERSISTENT_WITH_TTL)
          .setTtlMs(200)));
      s.ok(exists("/ttl", true));
      WatchEvent deleted = s.nextEvent();
      assertEquals(EventType.NODE_DELETED, deleted.getType());
      assertEquals("/ttl", deleted.getPath());
    }
  }

  @Test
  void containerGoesWithItsLastChild() {
    try (RawSession s = live.open()) {
      s.ok(create("/box", "", CreateMode.CONTAINER));
      s.ok(create("/box/item", ""));
      s.ok(exists("/box", true));
      long xid = s.sendRequest(delete("/box/item", -1));
      WatchEvent gone = s.nextEvent();
      assertEquals(EventType.NODE_DELETED, gone.getType(), "the container went in the same change, before the answer");
      assertEquals("/box", gone.getPath());
      Response deleted = s.next().getResponse();
      assertEquals(xid, deleted.getXid());
      assertEquals(gone.getZxid(), deleted.getZxid());
      assertFalse(s.ok(exists("/box", false)).getExists().hasStat());
    }
  }

  @Test
  void versionsAreChecked() {
    try (RawSession s = live.open()) {
      s.ok(create("/v", "0"));
      assertEquals(ErrorCode.BAD_VERSION, s.error(setData("/v", "x", 5)).getCode());
      assertEquals(1, s.ok(setData("/v", "1", 0)).getSetData().getStat().getVersion());
      assertEquals(ErrorCode.BAD_VERSION, s.error(delete("/v", 0)).getCode());
      s.ok(delete("/v", 1));
      assertEquals(ErrorCode.NO_NODE, s.error(getData("/v", false)).getCode());
    }
  }

  @Test
  void closeDeletesEphemeralsAtOnceAndEndsTheStream() {
    try (RawSession owner = live.open(); RawSession watcher = live.open()) {
      owner.ok(create("/eph", "", CreateMode.EPHEMERAL));
      watcher.ok(exists("/eph", true));
      owner.ok(Ops.closeSession());
      assertEquals(Status.Code.OK, owner.awaitEnd().status().getCode());
      WatchEvent deleted = watcher.nextEvent();
      assertEquals(EventType.NODE_DELETED, deleted.getType());
      assertFalse(watcher.ok(exists("/eph", false)).getExists().hasStat());
    }
  }

  @Test
  void aClosingSessionsOwnWatchHearsItsEphemeralGoBeforeTheCloseIsAnswered() {
    try (RawSession owner = live.open()) {
      owner.ok(create("/own", "", CreateMode.EPHEMERAL));
      owner.ok(exists("/own", true));

      long close = owner.sendRequest(Ops.closeSession());

      WatchEvent deleted = owner.nextEvent();
      assertEquals(EventType.NODE_DELETED, deleted.getType());
      assertEquals("/own", deleted.getPath());
      Response closed = owner.next().getResponse();
      assertEquals(close, closed.getXid());
      assertEquals(deleted.getZxid(), closed.getZxid(), "the event is the close's own change");
      assertEquals(Status.Code.OK, owner.awaitEnd().status().getCode());
    }
  }

  @Test
  void clientThatHalfClosesIsAnsweredEverythingItSentThenTheStreamEndsAndTheSessionStays() {
    RawSession s = live.open();
    long first = s.sendRequest(create("/hc1", "", CreateMode.EPHEMERAL));
    long second = s.sendRequest(create("/hc2", ""));
    s.close();
    assertEquals(first, s.next().getResponse().getXid());
    Response last = s.next().getResponse();
    assertEquals(second, last.getXid());
    assertFalse(last.hasError(), last.getError().toString());
    assertEquals(Status.Code.OK, s.awaitEnd().status().getCode());

    try (RawSession again = RawSession.reattach(live.channel(), s.sessionId(), s.connected().getPassword(),
        last.getZxid())) {
      assertTrue(again.next().getConnected().getReattached());
      assertEquals(s.sessionId(), again.ok(exists("/hc1", false)).getExists().getStat().getEphemeralOwner());
    }
  }

  @Test
  void silentSessionExpiresAndItsEphemeralsGoInOneChange() {
    try (RawSession quiet = RawSession.open(live.channel(), 200); RawSession watcher = live.open()) {
      assertEquals(200, quiet.connected().getTimeoutMs(), "2 ticks of 100 ms");
      quiet.ok(create("/e1", "", CreateMode.EPHEMERAL));
      quiet.ok(create("/e2", "", CreateMode.EPHEMERAL));
      watcher.ok(exists("/e1", true));
      watcher.ok(exists("/e2", true));
      // the quiet session now sends nothing
      WatchEvent first = watcher.nextEvent();
      WatchEvent second = watcher.nextEvent();
      assertEquals(EventType.NODE_DELETED, first.getType());
      assertEquals(EventType.NODE_DELETED, second.getType());
      assertEquals(first.getZxid(), second.getZxid(), "both ephemerals went in one change");
      ServerMessage fatal = quiet.next();
      assertEquals(ErrorCode.SESSION_EXPIRED, fatal.getFatal().getCode());
      assertEquals(Status.Code.NOT_FOUND, quiet.awaitEnd().status().getCode());
    }
  }

  @Test
  void sessionReattachedWithinItsTimeoutKeepsItsEphemerals() {
    RawSession first = live.open();
    Response created = first.ok(create("/mine", "", CreateMode.EPHEMERAL));
    first.breakStream();

    try (RawSession again = RawSession.reattach(live.channel(), first.sessionId(), first.connected().getPassword(),
        created.getZxid())) {
      ServerMessage hello = again.next();
      assertTrue(hello.getConnected().getReattached());
      assertEquals(first.sessionId(), hello.getConnected().getSessionId());
      Stat stat = again.ok(exists("/mine", false)).getExists().getStat();
      assertEquals(first.sessionId(), stat.getEphemeralOwner());
    }
  }

  @Test
  void reattachedSessionIsToldExactlyTheEventsItMissed() {
    RawSession away = live.open();
    away.ok(create("/x", "0"));
    away.ok(create("/t", ""));
    away.ok(getData("/x", true));
    away.ok(exists("/y", true));
    long lastSeen = away.ok(Ops.addWatch("/t", AddWatchMode.PERSISTENT_RECURSIVE_WATCH_MODE)).getZxid();
    away.breakStream();

    try (RawSession writer = live.open()) {
      writer.ok(setData("/x", "1", -1));
      writer.ok(setData("/x", "2", -1));
      writer.ok(create("/y", ""));
      writer.ok(create("/t/a", ""));
      writer.ok(delete("/t/a", -1));
      writer.ok(create("/unwatched", ""));

      try (RawSession back = RawSession.reattach(live.channel(), away.sessionId(), away.connected().getPassword(),
          lastSeen)) {
        assertTrue(back.next().getConnected().getReattached());
        long xid = back.sendRequest(dev.corral.proto.v1.Request.newBuilder().setSetWatches(
            dev.corral.proto.v1.SetWatchesRequest.newBuilder()
                .setRelativeZxid(lastSeen)
                .addDataWatches("/x")
                .addExistWatches("/y")
                .addPersistentRecursiveWatches("/t")));
        List<String> missed = new ArrayList<>();
        ServerMessage message;
        while ((message = back.next()).hasEvent()) {
          missed.add(message.getEvent().getType() + " " + message.getEvent().getPath());
        }
        assertEquals(xid, message.getResponse().getXid());
        assertEquals(List.of("NODE_DATA_CHANGED /x", "NODE_CREATED /y", "NODE_CREATED /t/a", "NODE_DELETED /t/a"),
            missed, "each one-shot watch fires once, the persistent one for every change, in zxid order");

        writer.ok(setData("/x", "3", -1));
        writer.ok(create("/t/b", ""));
        WatchEvent after = back.nextEvent();
        assertEquals("NODE_CREATED /t/b", after.getType() + " " + after.getPath(),
            "the one-shot watch on /x was used up; the persistent one stays");
      }
    }
  }

  @Test
  void aSetWatchesSentInPartsIsReplayedOnceAsAWhole() {
    RawSession away = live.open();
    long lastSeen = away.ok(create("/parts", "0")).getZxid();
    away.breakStream();

    try (RawSession writer = live.open()) {
      writer.ok(setData("/parts", "1", -1));
      try (RawSession back = RawSession.reattach(live.channel(), away.sessionId(), away.connected().getPassword(),
          lastSeen)) {
        assertTrue(back.next().getConnected().getReattached());
        back.sendRequest(dev.corral.proto.v1.Request.newBuilder().setSetWatches(
            dev.corral.proto.v1.SetWatchesRequest.newBuilder().setRelativeZxid(lastSeen).setMore(true)
                .addDataWatches("/parts")));
        assertTrue(back.next().hasResponse(), "the first part is answered, with nothing replayed yet");
        long last = back.sendRequest(dev.corral.proto.v1.Request.newBuilder().setSetWatches(
            dev.corral.proto.v1.SetWatchesRequest.newBuilder().setRelativeZxid(lastSeen)
                .addPersistentRecursiveWatches("/")));
        assertEquals("NODE_DATA_CHANGED /parts", describe(back.nextEvent()));
        assertEquals(last, back.next().getResponse().getXid(), "the change was told once, for both parts' watches");

        writer.ok(setData("/parts", "2", -1));
        assertEquals("NODE_DATA_CHANGED /parts", describe(back.nextEvent()), "the recursive watch stays");
      }
    }
  }

  @Test
  void aSessionBehindTheHistoryIsToldEachChangeOnceInZxidOrder() {
    RawSession away = live.open();
    away.ok(create("/old", "0"));
    long lastSeen = away.ok(create("/old/p", "0")).getZxid();
    away.breakStream();

    try (RawSession writer = live.open()) {
      writer.ok(create("/old/early", ""));
      writer.ok(setData("/old/p", "1", -1));
      for (int batch = 0; batch < 30; batch++) { // 30 x 1,000 creates, two events each: beyond the history kept
        dev.corral.proto.v1.MultiOp[] ops = new dev.corral.proto.v1.MultiOp[1000];
        for (int i = 0; i < ops.length; i++) {
          ops[i] = dev.corral.proto.v1.MultiOp.newBuilder().setCreate(createOp("/filler-" + batch + "-" + i, "",
              CreateMode.PERSISTENT)).build();
        }
        writer.ok(Ops.multi(ops));
      }
      try (RawSession back = RawSession.reattach(live.channel(), away.sessionId(), away.connected().getPassword(),
          lastSeen)) {
        assertTrue(back.next().getConnected().getReattached());
        long xid = back.sendRequest(dev.corral.proto.v1.Request.newBuilder().setSetWatches(
            dev.corral.proto.v1.SetWatchesRequest.newBuilder().setRelativeZxid(lastSeen)
                .addDataWatches("/old/p")
                .addPersistentWatches("/old/p")
                .addPersistentRecursiveWatches("/old")));
        List<String> missed = new ArrayList<>();
        ServerMessage message;
        while ((message = back.next()).hasEvent()) {
          missed.add(describe(message.getEvent()));
        }
        assertEquals(xid, message.getResponse().getXid());
        assertEquals(List.of("NODE_CREATED /old/early", "NODE_DATA_CHANGED /old/p"), missed,
            "three watches found the change of /old/p; it came after the create of /old/early");
      }
    }
  }

  private static String describe(WatchEvent event) {
    return event.getType() + " " + event.getPath();
  }

  @Test
  void serverThatCannotApplyTheLogEndsItsStreamsAndRefusesNewSessions() {
    try (RawSession s = live.open()) {
      live.server().core().failed(new IllegalStateException("simulated apply failure"));

      dev.corral.proto.v1.Error ended = s.next().getFatal();
      assertEquals(ErrorCode.NOT_READY, ended.getCode());
      assertTrue(ended.getMessage().contains("simulated apply failure"), ended.getMessage());
      assertEquals(Status.Code.UNAVAILABLE, s.awaitEnd().status().getCode());

      RawSession refused = RawSession.stream(live.channel());
      refused.send(dev.corral.proto.v1.ClientMessage.newBuilder()
          .setConnect(dev.corral.proto.v1.Connect.getDefaultInstance()).build());
      assertEquals(ErrorCode.NOT_READY, refused.next().getFatal().getCode());
      io.grpc.health.v1.HealthCheckResponse health = io.grpc.health.v1.HealthGrpc.newBlockingStub(live.channel())
          .check(io.grpc.health.v1.HealthCheckRequest.getDefaultInstance());
      assertEquals(io.grpc.health.v1.HealthCheckResponse.ServingStatus.NOT_SERVING, health.getStatus());
    }
  }

  @Test
  void requestsSentRightAfterConnectAreAnsweredAfterConnectedInOrder() {
    try (RawSession s = RawSession.stream(live.channel())) {
      s.send(dev.corral.proto.v1.ClientMessage.newBuilder()
          .setConnect(dev.corral.proto.v1.Connect.newBuilder().setTimeoutMs(2000)).build());
      long created = s.sendRequest(create("/early", "x"));
      long read = s.sendRequest(getData("/early", false));
      assertTrue(s.next().hasConnected(), "the handshake is answered first");
      assertEquals(created, s.next().getResponse().getXid());
      Response data = s.next().getResponse();
      assertEquals(read, data.getXid());
      assertEquals(bytes("x"), data.getGetData().getData());
    }
  }

  @Test
  void requestsSentAfterARefusedConnectAreNeverRun() {
    try (RawSession owner = live.open();
        RawSession thief = RawSession.reattach(live.channel(), owner.sessionId(), bytes("wrong"), 0)) {
      thief.sendRequest(create("/stolen", "", CreateMode.EPHEMERAL));
      assertEquals(ErrorCode.SESSION_EXPIRED, thief.next().getFatal().getCode());
      assertEquals(Status.Code.NOT_FOUND, thief.awaitEnd().status().getCode());
      assertFalse(owner.ok(exists("/stolen", false)).getExists().hasStat());
    }
  }

  @Test
  void reattachWithWrongPasswordIsRefusedAsExpired() {
    try (RawSession s = live.open();
        RawSession thief = RawSession.reattach(live.channel(), s.sessionId(), bytes("not-the-password"), 0)) {
      assertEquals(ErrorCode.SESSION_EXPIRED, thief.next().getFatal().getCode());
      s.ok(Ops.ping());
    }
  }

  @Test
  void secondStreamOfASessionMovesItAwayFromTheFirst() {
    try (RawSession first = live.open();
        RawSession second = RawSession.reattach(live.channel(), first.sessionId(), first.connected().getPassword(), 0)) {
      assertTrue(second.next().hasConnected());
      assertEquals(ErrorCode.SESSION_MOVED, first.next().getFatal().getCode());
      second.ok(Ops.ping());
    }
  }

  @Test
  void clientThatSawALaterZxidIsRefusedByAServerBehindIt() {
    try (RawSession s = live.open();
        RawSession ahead = RawSession.reattach(live.channel(), s.sessionId(), s.connected().getPassword(), Long.MAX_VALUE)) {
      assertEquals(ErrorCode.SERVER_BEHIND, ahead.next().getFatal().getCode());
    }
  }
}
