package dev.corral.client.grpc;

import static dev.corral.client.ConnectionState.RECONNECTED;
import static dev.corral.client.ConnectionState.SUSPENDED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.AddWatchMode;
import dev.corral.client.Code;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.EventType;
import dev.corral.client.InvalidArgumentException;
import dev.corral.client.NoNodeException;
import dev.corral.client.NoWatcherException;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WatchTest {
  private static final byte[] NONE = new byte[0];

  private TestingServer server;
  private FaultInjector faults;
  private CorralClient client;
  private CorralClient writer;

  @BeforeEach
  void start() throws InterruptedException {
    server = new TestingServer();
    faults = new FaultInjector();
    client = CorralClient.builder().connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10)).interceptor(faults).build();
    writer = CorralClient.builder().connectString(server.getConnectString()).build();
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
  }

  @AfterEach
  void closeAll() {
    writer.close();
    client.close();
    server.close();
  }

  /** Records the events a watcher gets. */
  private static final class Recorder implements Watcher {
    final BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();

    @Override
    public void process(WatchedEvent event) {
      events.add(event);
    }

    WatchedEvent next() throws InterruptedException {
      WatchedEvent event = events.poll(30, TimeUnit.SECONDS);
      if (event == null) {
        throw new AssertionError("no event within 30 s");
      }
      return event;
    }

    void expect(EventType type, String path) throws InterruptedException {
      WatchedEvent event = next();
      assertEquals(type, event.type(), event.toString());
      assertEquals(path, event.path(), event.toString());
    }
  }

  /** Changes made by the other session. */
  private interface Changes {
    void make() throws Exception;
  }

  /**
   * Makes {@code changes}, then shows that none of {@code quiet} heard of them: the event of a later change,
   * watched by another watcher, did come (events come in the order of the changes).
   */
  private void assertUnheard(Changes changes, Recorder... quiet) throws Exception {
    assertUnheard(client, changes, quiet);
  }

  /** As above, for watchers of {@code watching}'s. */
  private void assertUnheard(CorralClient watching, Changes changes, Recorder... quiet) throws Exception {
    Recorder sentinel = new Recorder();
    watching.exists("/sentinel", sentinel);
    changes.make();
    writer.create("/sentinel", NONE, CreateMode.PERSISTENT);
    sentinel.expect(EventType.NODE_CREATED, "/sentinel");
    for (Recorder watcher : quiet) {
      assertTrue(watcher.events.isEmpty(), "no event heard: " + watcher.events);
    }
  }

  /** As {@link #assertUnheard}, and shows that the server sent no event on {@code path}: it holds no watch there. */
  private void assertServerSilentOn(String path, Changes changes, Recorder... quiet) throws Exception {
    faults.dropOnce(message -> message.hasEvent() && message.getEvent().getPath().equals(path));
    assertUnheard(changes, quiet);
    assertFalse(faults.dropped().isDone(), "the server still sent an event: " + faults.dropped().getNow(null));
  }

  @Test
  void watcherIsCalledBeforeTheReadThatShowsTheChangeReturns() throws Exception {
    client.create("/w", NONE, CreateMode.PERSISTENT);
    List<String> seen = new CopyOnWriteArrayList<>();
    client.getData("/w", event -> seen.add("event " + event.type()));

    writer.setData("/w", "v1".getBytes(), -1);
    byte[] read = client.getData("/w").data();
    seen.add("read " + new String(read));

    assertEquals(List.of("event NODE_DATA_CHANGED", "read v1"), seen);
  }

  /**
   * A blocking call's answer skips the event queue only while the queue is idle:
   * here the watcher of the earlier change is still running when the answer
   * arrives, and the read waits for it.
   */
  @Test
  void aReadWaitsForTheSlowWatcherOfAnEarlierChange() throws Exception {
    client.create("/w", NONE, CreateMode.PERSISTENT);
    List<String> seen = new CopyOnWriteArrayList<>();
    CountDownLatch watcherRunning = new CountDownLatch(1);
    client.getData("/w", event -> {
      watcherRunning.countDown();
      sleepQuietly(Duration.ofMillis(500));
      seen.add("event " + event.type());
    });

    writer.setData("/w", "v1".getBytes(), -1);
    assertTrue(watcherRunning.await(30, TimeUnit.SECONDS));
    byte[] read = client.getData("/w").data();
    seen.add("read " + new String(read));

    assertEquals(List.of("event NODE_DATA_CHANGED", "read v1"), seen);
  }

  private static void sleepQuietly(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void oneShotWatchesFireOnceForTheirKindOfChange() throws Exception {
    Recorder exists = new Recorder();
    Recorder children = new Recorder();
    assertTrue(client.exists("/o", exists).isEmpty());
    writer.create("/o", NONE, CreateMode.PERSISTENT);
    exists.expect(EventType.NODE_CREATED, "/o");

    client.getChildren("/o", children);
    writer.create("/o/c", NONE, CreateMode.PERSISTENT);
    children.expect(EventType.NODE_CHILDREN_CHANGED, "/o");

    assertUnheard(() -> writer.create("/o/d", NONE, CreateMode.PERSISTENT), children, exists);
  }

  @Test
  void persistentWatchSeesEveryChangeOfItsNodeUntilRemoved() throws Exception {
    Recorder watcher = new Recorder();
    client.addWatch("/p", AddWatchMode.PERSISTENT, watcher);
    writer.create("/p", NONE, CreateMode.PERSISTENT);
    writer.setData("/p", "x".getBytes(), -1);
    writer.create("/p/c", NONE, CreateMode.PERSISTENT);
    writer.delete("/p/c", -1);
    writer.delete("/p", -1);
    watcher.expect(EventType.NODE_CREATED, "/p");
    watcher.expect(EventType.NODE_DATA_CHANGED, "/p");
    watcher.expect(EventType.NODE_CHILDREN_CHANGED, "/p");
    watcher.expect(EventType.NODE_CHILDREN_CHANGED, "/p");
    watcher.expect(EventType.NODE_DELETED, "/p");

    client.removeWatches("/p", watcher, WatcherType.PERSISTENT);
    watcher.expect(EventType.PERSISTENT_WATCH_REMOVED, "/p");
    assertUnheard(() -> writer.create("/p", NONE, CreateMode.PERSISTENT), watcher);
  }

  @Test
  void recursiveWatchSeesItsNodeAndEveryDescendant() throws Exception {
    Recorder watcher = new Recorder();
    client.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE, watcher);
    writer.create("/r", NONE, CreateMode.PERSISTENT);
    writer.create("/r/a", NONE, CreateMode.PERSISTENT);
    writer.create("/r/a/b", NONE, CreateMode.PERSISTENT);
    writer.setData("/r/a/b", "x".getBytes(), -1);
    writer.delete("/r/a/b", -1);
    watcher.expect(EventType.NODE_CREATED, "/r");
    watcher.expect(EventType.NODE_CREATED, "/r/a");
    watcher.expect(EventType.NODE_CREATED, "/r/a/b");
    watcher.expect(EventType.NODE_DATA_CHANGED, "/r/a/b");
    watcher.expect(EventType.NODE_DELETED, "/r/a/b");
  }

  @Test
  void recursiveWatchesAtSeveralDepthsHearTheirOwnSubtreesOnly() throws Exception {
    Recorder top = new Recorder();
    Recorder deep = new Recorder();
    Recorder sibling = new Recorder();
    client.addWatch("/s", AddWatchMode.PERSISTENT_RECURSIVE, top);
    client.addWatch("/s/a/b", AddWatchMode.PERSISTENT_RECURSIVE, deep);
    client.addWatch("/sx", AddWatchMode.PERSISTENT_RECURSIVE, sibling);

    // events from depth 1 to 5: both ways of finding the watches (by ancestor, by watched path) are used
    writer.create("/s/a/b/c/d", NONE, CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
    writer.create("/sx", NONE, CreateMode.PERSISTENT);

    for (String created : List.of("/s", "/s/a", "/s/a/b", "/s/a/b/c", "/s/a/b/c/d")) {
      top.expect(EventType.NODE_CREATED, created);
    }
    for (String created : List.of("/s/a/b", "/s/a/b/c", "/s/a/b/c/d")) {
      deep.expect(EventType.NODE_CREATED, created);
    }
    sibling.expect(EventType.NODE_CREATED, "/sx");
  }

  @Test
  void removeAllWatchesRemovesEveryWatchersWatchesOfTheTypeAndTellsEach() throws Exception {
    writer.create("/all", NONE, CreateMode.PERSISTENT);
    Recorder data = new Recorder();
    Recorder exists = new Recorder();
    Recorder children = new Recorder();
    client.getData("/all", data);
    client.exists("/all", exists);
    client.getChildren("/all", children);

    client.removeAllWatches("/all", WatcherType.DATA);
    data.expect(EventType.DATA_WATCH_REMOVED, "/all");
    exists.expect(EventType.DATA_WATCH_REMOVED, "/all");
    assertThrows(NoWatcherException.class, () -> client.removeAllWatches("/all", WatcherType.DATA));
    writer.setData("/all", "x".getBytes(), -1);
    writer.create("/all/c", NONE, CreateMode.PERSISTENT);
    children.expect(EventType.NODE_CHILDREN_CHANGED, "/all");

    client.getChildren("/all", children);
    client.removeAllWatches("/all", WatcherType.ANY);
    children.expect(EventType.CHILD_WATCH_REMOVED, "/all");
    assertUnheard(() -> writer.delete("/all/c", -1), data, exists, children);
  }

  @Test
  void removeAllWatchesTakesAWatchSeveralWatchersHoldOffTheServer() throws Exception {
    writer.create("/shared", NONE, CreateMode.PERSISTENT);
    Recorder first = new Recorder();
    Recorder second = new Recorder();
    client.addWatch("/shared", AddWatchMode.PERSISTENT, first);
    client.addWatch("/shared", AddWatchMode.PERSISTENT, second);

    client.removeAllWatches("/shared", WatcherType.PERSISTENT);
    first.expect(EventType.PERSISTENT_WATCH_REMOVED, "/shared");
    second.expect(EventType.PERSISTENT_WATCH_REMOVED, "/shared");
    assertServerSilentOn("/shared", () -> writer.setData("/shared", "x".getBytes(), -1), first, second);
  }

  @Test
  void twoRemovalsUnderWayTogetherTakeTheWatchOffTheServer() throws Exception {
    writer.create("/pair", NONE, CreateMode.PERSISTENT);
    Recorder first = new Recorder();
    Recorder second = new Recorder();
    client.addWatch("/pair", AddWatchMode.PERSISTENT, first);
    client.addWatch("/pair", AddWatchMode.PERSISTENT, second);

    CompletableFuture<Void> one = client.async().removeWatches("/pair", first, WatcherType.PERSISTENT);
    CompletableFuture<Void> other = client.async().removeWatches("/pair", second, WatcherType.PERSISTENT);
    CompletableFuture.allOf(one, other).get(30, TimeUnit.SECONDS);
    first.expect(EventType.PERSISTENT_WATCH_REMOVED, "/pair");
    second.expect(EventType.PERSISTENT_WATCH_REMOVED, "/pair");
    client.sync("/pair"); // answered after the removal the last of them sent
    assertServerSilentOn("/pair", () -> writer.setData("/pair", "x".getBytes(), -1), first, second);
  }

  @Test
  void aWatchLeftAgainRightAfterItsRemovalWasAskedStays() throws Exception {
    writer.create("/again", NONE, CreateMode.PERSISTENT);
    Recorder watcher = new Recorder();
    client.getData("/again", watcher);

    CompletableFuture<Void> removal = client.async().removeWatches("/again", watcher, WatcherType.DATA);
    client.getData("/again", watcher); // sent after the removal: the server holds the watch again
    removal.get(30, TimeUnit.SECONDS);
    watcher.expect(EventType.DATA_WATCH_REMOVED, "/again");

    writer.setData("/again", "x".getBytes(), -1);
    watcher.expect(EventType.NODE_DATA_CHANGED, "/again");
  }

  @Test
  void aRecursiveWatchIsRemovedByItsOwnTypeOnlyAsInZooKeeper() throws Exception {
    Recorder watcher = new Recorder();
    client.addWatch("/rr", AddWatchMode.PERSISTENT_RECURSIVE, watcher);
    assertThrows(NoWatcherException.class, () -> client.removeWatches("/rr", watcher, WatcherType.PERSISTENT));
    writer.create("/rr", NONE, CreateMode.PERSISTENT);
    watcher.expect(EventType.NODE_CREATED, "/rr");

    client.removeWatches("/rr", watcher, WatcherType.PERSISTENT_RECURSIVE);
    watcher.expect(EventType.PERSISTENT_WATCH_REMOVED, "/rr");
    assertUnheard(() -> writer.create("/rr/a", NONE, CreateMode.PERSISTENT), watcher);
  }

  @Test
  void aChangeMadeWhileDisconnectedFiresItsEventAfterTheReconnect() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    client.create("/d", NONE, CreateMode.PERSISTENT);
    Recorder data = new Recorder();
    Recorder persistent = new Recorder();
    client.getData("/d", data);
    client.addWatch("/d", AddWatchMode.PERSISTENT, persistent);

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.setData("/d", "changed".getBytes(), -1);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED);

    data.expect(EventType.NODE_DATA_CHANGED, "/d");
    assertEquals("changed", new String(client.getData("/d").data()));
  }

  @Test
  void persistentWatchesMissNoEventWhileTheSessionReattaches() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    long sessionId = client.sessionId();
    writer.create("/d", NONE, CreateMode.PERSISTENT);
    writer.create("/r", NONE, CreateMode.PERSISTENT);
    Recorder watcher = new Recorder();
    client.addWatch("/d", AddWatchMode.PERSISTENT, watcher);
    client.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE, watcher);

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.setData("/d", "missed".getBytes(), -1);
    writer.create("/r/x", NONE, CreateMode.PERSISTENT);
    writer.delete("/r/x", -1);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED);

    assertEquals(sessionId, client.sessionId(), "the same session re-attached");
    watcher.expect(EventType.NODE_DATA_CHANGED, "/d");
    watcher.expect(EventType.NODE_CREATED, "/r/x");
    watcher.expect(EventType.NODE_DELETED, "/r/x");
    writer.setData("/d", "after".getBytes(), -1);
    writer.create("/r/y", NONE, CreateMode.PERSISTENT);
    watcher.expect(EventType.NODE_DATA_CHANGED, "/d");
    watcher.expect(EventType.NODE_CREATED, "/r/y");
    assertEquals(List.of(SUSPENDED, RECONNECTED), states.states());
  }

  @Test
  void watchesAddingUpToMoreThanARequestAreRegisteredAgainInPartsEachChangeToldOnce() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    client.create("/d", NONE, CreateMode.PERSISTENT);
    Recorder data = new Recorder();
    Recorder recursive = new Recorder();
    Recorder exists = new Recorder();
    client.getData("/d", data);
    String name = "n".repeat(3_900);
    List<CompletableFuture<?>> watched = new ArrayList<>();
    for (int i = 0; i < 1_100; i++) { // 4.3 MB of paths, over the server's 4 MiB request cap
      watched.add(client.async().exists("/many/" + i + "-" + name, exists));
    }
    CompletableFuture.allOf(watched.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    client.addWatch("/", AddWatchMode.PERSISTENT_RECURSIVE, recursive); // in the last part, /d's in the first

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.setData("/d", "missed".getBytes(), -1);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED);

    data.expect(EventType.NODE_DATA_CHANGED, "/d");
    recursive.expect(EventType.NODE_DATA_CHANGED, "/d");
    writer.create("/many/7-" + name, NONE, CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
    exists.expect(EventType.NODE_CREATED, "/many/7-" + name);
    recursive.expect(EventType.NODE_CREATED, "/many");
    recursive.expect(EventType.NODE_CREATED, "/many/7-" + name);
    assertEquals(List.of(SUSPENDED, RECONNECTED), states.states(), "re-attached once, for good");
  }

  @Test
  void watchesRegisteredInPartsOverAStreamThatBreaksBetweenThemMissNoEvent() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    client.create("/d", NONE, CreateMode.PERSISTENT);
    Recorder data = new Recorder();
    client.getData("/d", data);
    String name = "n".repeat(3_900);
    List<CompletableFuture<?>> watched = new ArrayList<>();
    for (int i = 0; i < 100; i++) { // 390 KB of paths: three parts
      watched.add(client.async().exists("/many/" + i + "-" + name, event -> { }));
    }
    CompletableFuture.allOf(watched.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.setData("/d", "missed".getBytes(), -1);
    // the first part's answer comes at a zxid past the change; the stream breaks before the last part
    faults.cutOnArrivalOf(message -> message.hasResponse() && message.getResponse().hasSetWatches());
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED, SUSPENDED);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED, SUSPENDED, RECONNECTED);

    data.expect(EventType.NODE_DATA_CHANGED, "/d");
  }

  @Test
  void persistentWatchesMissNoEventOfASessionBehindTheServersRestart() throws Exception {
    writer.create("/r", NONE, CreateMode.PERSISTENT);
    writer.create("/r/a", NONE, CreateMode.PERSISTENT);
    writer.create("/r/b", NONE, CreateMode.PERSISTENT);
    Recorder recursive = new Recorder();
    Recorder persistent = new Recorder();
    client.addWatch("/r", AddWatchMode.PERSISTENT_RECURSIVE, recursive);
    client.addWatch("/r/a", AddWatchMode.PERSISTENT, persistent);
    writer.create("/elsewhere", NONE, CreateMode.PERSISTENT); // the watching session never hears of this one

    // behind the server's last change when it restarts: only a history kept across the restart can tell it
    // that /r/a was deleted (the tree shows no trace of a deletion)
    faults.refuseNewStreams(true);
    faults.cutStream();
    server.restart();
    assertTrue(writer.blockUntilConnected(30, TimeUnit.SECONDS));
    writer.delete("/r/a", -1);
    writer.setData("/r/b", "missed".getBytes(), -1);
    faults.refuseNewStreams(false);
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));

    recursive.expect(EventType.NODE_DELETED, "/r/a");
    recursive.expect(EventType.NODE_DATA_CHANGED, "/r/b");
    persistent.expect(EventType.NODE_DELETED, "/r/a");
    assertNull(recursive.events.poll(200, TimeUnit.MILLISECONDS), "each missed change told once");
    assertNull(persistent.events.poll(0, TimeUnit.MILLISECONDS), "each missed change told once");
  }

  @Test
  void aWatchTheServerCannotBeToldToDropStaysUnlessRemovedLocally() throws Exception {
    FaultInjector network = new FaultInjector();
    try (CorralClient impatient = CorralClient.builder().connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofSeconds(1))
        .retryPolicy(RetryPolicy.none()).interceptor(network).build()) {
      StateRecorder states = new StateRecorder();
      impatient.addConnectionStateListener(states);
      impatient.create("/rw", NONE, CreateMode.PERSISTENT);
      Recorder kept = new Recorder();
      Recorder dropped = new Recorder();
      impatient.getData("/rw", kept);
      impatient.exists("/rw", dropped);

      network.refuseNewStreams(true);
      network.cutStream();
      states.awaitTail(SUSPENDED);
      CoordinationException failed = assertThrows(CoordinationException.class,
          () -> impatient.removeWatches("/rw", kept, WatcherType.DATA));
      assertEquals(Code.CONNECTION_LOSS, failed.code(), "as in ZooKeeper");
      impatient.removeWatches("/rw", dropped, WatcherType.DATA, true); // local: gone at once, server or not
      dropped.expect(EventType.DATA_WATCH_REMOVED, "/rw");
      network.refuseNewStreams(false);
      states.awaitTail(SUSPENDED, RECONNECTED);

      writer.setData("/rw", "changed".getBytes(), -1);
      kept.expect(EventType.NODE_DATA_CHANGED, "/rw"); // not told of a removal first: it stayed
      assertUnheard(impatient, () -> writer.setData("/rw", "again".getBytes(), -1), dropped); // the local removal held
    }
  }

  @Test
  void removingAWatcherThatHasNoWatchFailsWithNoWatcher() throws Exception {
    client.create("/nw", NONE, CreateMode.PERSISTENT);
    Watcher stranger = event -> { };
    assertThrows(NoWatcherException.class, () -> client.removeWatches("/nw", stranger, WatcherType.ANY));

    Recorder kept = new Recorder();
    Recorder removed = new Recorder();
    client.getData("/nw", kept);
    client.getData("/nw", removed);
    client.removeWatches("/nw", removed, WatcherType.DATA);
    assertThrows(NoWatcherException.class, () -> client.removeWatches("/nw", removed, WatcherType.DATA));
    writer.setData("/nw", "x".getBytes(), -1);
    kept.expect(EventType.NODE_DATA_CHANGED, "/nw");
    assertEquals(List.of(new WatchedEvent(EventType.DATA_WATCH_REMOVED, "/nw", WatchedEvent.NO_ZXID)),
        List.copyOf(removed.events), "told of its removal once, then never called");
  }

  @Test
  void aRemovedWatcherIsToldOfEachKindOfWatchItLostAsZooKeeperTellsIt() throws Exception {
    client.create("/rw", NONE, CreateMode.PERSISTENT);
    Recorder watcher = new Recorder();
    client.getData("/rw", watcher);
    client.getChildren("/rw", watcher);
    client.exists("/rw/missing", watcher);
    client.addWatch("/rw", AddWatchMode.PERSISTENT_RECURSIVE, watcher);

    client.removeWatches("/rw", watcher, WatcherType.ANY);
    watcher.expect(EventType.DATA_WATCH_REMOVED, "/rw");
    watcher.expect(EventType.CHILD_WATCH_REMOVED, "/rw");
    watcher.expect(EventType.PERSISTENT_WATCH_REMOVED, "/rw");
    client.removeWatches("/rw/missing", watcher, WatcherType.DATA);
    watcher.expect(EventType.DATA_WATCH_REMOVED, "/rw/missing");

    assertUnheard(() -> {
      writer.setData("/rw", "x".getBytes(), -1);
      writer.create("/rw/missing", NONE, CreateMode.PERSISTENT);
    }, watcher);
  }

  @Test
  void aWatcherThatThrowsDoesNotStopDelivery() throws Exception {
    Recorder after = new Recorder();
    client.exists("/t", event -> {
      throw new IllegalStateException("a faulty watcher");
    });
    client.exists("/t", after);
    writer.create("/t", NONE, CreateMode.PERSISTENT);
    after.expect(EventType.NODE_CREATED, "/t");
  }

  // ---------------------------------------------------------------- FIRST watches (a sequential node's turn)

  /** A new sequential node under /q (created on first use). */
  private String queued() throws Exception {
    if (writer.exists("/q").isEmpty()) {
      writer.create("/q", NONE, CreateMode.PERSISTENT);
    }
    return writer.create("/q/n-", NONE, CreateMode.PERSISTENT_SEQUENTIAL).path();
  }

  /**
   * Asserts that {@code watcher} got nothing so far: a read answered after the
   * changes comes after any event they fired (events precede the reads that show them).
   */
  private void assertQuiet(Recorder watcher) throws Exception {
    client.sync("/q");
    client.getChildren("/q");
    assertTrue(watcher.events.isEmpty(), "no event yet: " + watcher.events);
  }

  @Test
  void aFirstWatchFiresOnceEverySiblingWithALowerCounterIsGone() throws Exception {
    String first = queued();
    String second = queued();
    String third = queued();
    writer.create("/q/plain", NONE, CreateMode.PERSISTENT); // no counter: not in the queue
    Recorder watcher = new Recorder();
    client.addWatch(third, AddWatchMode.FIRST, watcher);

    writer.delete(second, -1);
    assertQuiet(watcher);
    writer.delete(first, -1);

    watcher.expect(EventType.NODE_FIRST, third);
    writer.delete(third, -1);
    assertQuiet(watcher); // one-shot: the deletion after the turn is not told
  }

  @Test
  void aFirstWatchOnANodeWhoseTurnHasComeFiresAtOnce() throws Exception {
    String only = queued();
    Recorder watcher = new Recorder();

    client.addWatch(only, AddWatchMode.FIRST, watcher);

    watcher.expect(EventType.NODE_FIRST, only);
  }

  @Test
  void aFirstWatchHearsTheDeletionOfItsNode() throws Exception {
    queued();
    String waiting = queued();
    Recorder watcher = new Recorder();
    client.addWatch(waiting, AddWatchMode.FIRST, watcher);

    writer.delete(waiting, -1);

    watcher.expect(EventType.NODE_DELETED, waiting);
  }

  @Test
  void aFirstWatchNeedsAnExistingNodeWithASequenceCounter() throws Exception {
    queued();
    writer.create("/q/plain", NONE, CreateMode.PERSISTENT);
    Recorder watcher = new Recorder();

    assertThrows(NoNodeException.class, () -> client.addWatch("/q/n-0000000099", AddWatchMode.FIRST, watcher));
    InvalidArgumentException noCounter = assertThrows(InvalidArgumentException.class,
        () -> client.addWatch("/q/plain", AddWatchMode.FIRST, watcher));
    assertTrue(noCounter.getMessage().contains("sequence counter"), noCounter.getMessage());
    assertQuiet(watcher);
  }

  @Test
  void aRemovedFirstWatchIsNotCalled() throws Exception {
    String first = queued();
    String second = queued();
    Recorder watcher = new Recorder();
    client.addWatch(second, AddWatchMode.FIRST, watcher);

    client.removeWatches(second, watcher, WatcherType.FIRST);
    watcher.expect(EventType.FIRST_WATCH_REMOVED, second);
    writer.delete(first, -1);

    assertQuiet(watcher);
  }

  @Test
  void aTurnThatCameWhileDisconnectedFiresAfterTheReconnect() throws Exception {
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    String first = queued();
    String second = queued();
    Recorder watcher = new Recorder();
    client.addWatch(second, AddWatchMode.FIRST, watcher);

    faults.refuseNewStreams(true);
    faults.cutStream();
    states.awaitTail(SUSPENDED);
    writer.delete(first, -1);
    faults.refuseNewStreams(false);
    states.awaitTail(SUSPENDED, RECONNECTED);

    watcher.expect(EventType.NODE_FIRST, second);
  }
}
