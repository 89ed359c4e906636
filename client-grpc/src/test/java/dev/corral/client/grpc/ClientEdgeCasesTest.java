package dev.corral.client.grpc;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.AddWatchMode;
import dev.corral.client.ClientClosedException;
import dev.corral.client.Code;
import dev.corral.client.ConnectionLossException;
import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.CreateOptions;
import dev.corral.client.DataTooLargeException;
import dev.corral.client.InvalidArgumentException;
import dev.corral.client.Created;
import dev.corral.client.NoWatcherException;
import dev.corral.client.Op;
import dev.corral.client.InvalidPathException;
import dev.corral.client.PathRules;
import dev.corral.client.Paths;
import dev.corral.client.Protection;
import dev.corral.client.WatchedEvent;
import dev.corral.client.Watcher;
import dev.corral.client.WatcherType;
import dev.corral.proto.v1.ServerMessage;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Edge cases of the client that Curator and ZooKeeper users run into. */
class ClientEdgeCasesTest {
  private static final byte[] NONE = new byte[0];
  private static final long WAIT_SECONDS = 30;

  private TestingServer server;
  private CorralClient client;
  private final List<AutoCloseable> others = new ArrayList<>();

  @BeforeEach
  void start() throws InterruptedException {
    server = new TestingServer();
    client = connect(CorralClient.builder());
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable other : others) {
      other.close();
    }
    client.close();
    server.close();
  }

  private CorralClient connect(CorralClient.Builder builder) throws InterruptedException {
    return connect(builder, Duration.ofSeconds(10));
  }

  private CorralClient connect(CorralClient.Builder builder, Duration sessionTimeout) throws InterruptedException {
    CorralClient c = builder.connectString(server.getConnectString()).sessionTimeout(sessionTimeout).build();
    others.add(c);
    assertTrue(c.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));
    return c;
  }

  @Test
  void aSessionWhoseClientIsGoneIsResumedByIdAndPasswordWithItsEphemerals() throws Exception {
    FaultInjector network = new FaultInjector();
    CorralClient gone = connect(CorralClient.builder().interceptor(network));
    gone.create("/gone", NONE, CreateMode.EPHEMERAL);
    long session = gone.sessionId();
    network.refuseNewStreams(true); // its process died, as far as the server can tell
    network.cutStream();

    CorralClient resumed = joining(session, gone.sessionPassword());
    assertTrue(resumed.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));

    assertEquals(session, resumed.sessionId());
    assertEquals(ConnectionState.CONNECTED, resumed.state(), "connected at once, not LOST and then reconnected");
    assertEquals(gone.sessionTimeout(), resumed.sessionTimeout(), "the session keeps its negotiated timeout");
    resumed.setData("/gone", NONE);
    resumed.create("/resumed", NONE, CreateMode.EPHEMERAL);
    assertEquals(session, client.exists("/resumed").orElseThrow().ephemeralOwner());

    resumed.close(); // closes the session: every ephemeral node of it goes, the gone client's too
    assertFalse(client.exists("/resumed").isPresent());
    assertFalse(client.exists("/gone").isPresent());
  }

  @Test
  void aRequestOverTheServersLimitsFailsUnsentAndTheConnectionStays() throws Exception {
    FaultInjector network = new FaultInjector();
    CorralClient sender = connect(CorralClient.builder().interceptor(network));
    StateRecorder states = new StateRecorder();
    sender.addConnectionStateListener(states);
    sender.create("/big", NONE, CreateMode.PERSISTENT);
    int sentBefore = network.operationsSent();

    // over the 4 MiB request cap, which would end the stream: refused before sending, as the server told its limits
    assertThrows(DataTooLargeException.class, () -> sender.setData("/big", new byte[5 << 20]));
    assertThrows(DataTooLargeException.class, () -> sender.create("/big/c", new byte[5 << 20], CreateMode.PERSISTENT));
    CoordinationException manyChecks = assertThrows(CoordinationException.class, () -> sender.multi(overTheCap()));

    assertEquals(Code.REQUEST_TOO_LARGE, manyChecks.code(), manyChecks.toString());
    assertEquals(0, network.operationsSent() - sentBefore, "nothing sent");
    assertEquals(List.of(), states.states(), "the connection stays");
    assertEquals(0, sender.getData("/big").stat().dataLength());
  }

  @Test
  void aRequestOverTheCapQueuedBeforeTheServerToldItsLimitsFailsWithRequestTooLargeOnce() throws Exception {
    FaultInjector network = new FaultInjector();
    network.refuseNewStreams(true);
    CorralClient sender = CorralClient.builder().connectString(server.getConnectString()).interceptor(network)
        .build();
    others.add(sender);
    CompletableFuture<?> queued = sender.async().multi(overTheCap()); // limits not known yet
    network.refuseNewStreams(false);

    // the server ends the stream, as for any client bug; the request fails for good, not retried
    ExecutionException refused = assertThrows(ExecutionException.class,
        () -> queued.get(WAIT_SECONDS, TimeUnit.SECONDS));

    assertInstanceOf(CoordinationException.class, refused.getCause());
    assertEquals(Code.REQUEST_TOO_LARGE, ((CoordinationException) refused.getCause()).code(),
        refused.getCause().toString());
    assertEquals(1, network.operationsSent(), "sent once: a retry would only end the stream again");
    assertTrue(sender.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(sender.exists("/big").isPresent(), "the session goes on");
  }

  /** A multi of checks over the 4 MiB request cap: 1,400 paths of 4,000 bytes (5.6 MB), no data. */
  private static List<Op> overTheCap() {
    String path = "/" + "p".repeat(3999);
    return Collections.nCopies(1400, Op.check(path, -1));
  }

  @Test
  void aRequestThatCouldNotBeSentOnAStreamThatDiedAsItConnectedStillFailsAtTheConnectionTimeout() throws Exception {
    FaultInjector network = new FaultInjector();
    // a session far longer than the connection timeout: the request must not wait for the session to be lost
    CorralClient cut = connect(CorralClient.builder().interceptor(network).connectionTimeout(Duration.ofSeconds(1)),
        server.getTick().multipliedBy(20));
    network.refuseNewStreams(true);
    network.cutStream();
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> cut.state() == ConnectionState.SUSPENDED);
    CompletableFuture<?> queued = cut.async().exists("/x"); // waits for a connection
    network.cutOnArrivalOf(ServerMessage::hasConnected);
    network.refuseNewStreams(false);

    ExecutionException failed = assertThrows(ExecutionException.class,
        () -> queued.get(WAIT_SECONDS, TimeUnit.SECONDS));

    assertInstanceOf(ConnectionLossException.class, failed.getCause(), failed.getCause().toString());
    assertEquals(ConnectionState.SUSPENDED, cut.state(), "the session is not lost meanwhile");
  }

  @Test
  void aClientWhoseSessionAnotherTookWaitsAHeartbeatBeforeTakingItBack() throws Exception {
    // 20 s sessions: a heartbeat period of 6.7 s, far longer than what follows takes
    CorralClient first = connect(CorralClient.builder(), server.getTick().multipliedBy(20));
    StateRecorder joinedStates = new StateRecorder();
    CorralClient joined = joining(first.sessionId(), first.sessionPassword());
    joined.addConnectionStateListener(joinedStates);
    assertTrue(joined.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> first.state() == ConnectionState.SUSPENDED);

    joined.create("/taken", NONE, CreateMode.EPHEMERAL);
    for (int i = 0; i < 20; i++) {
      joined.setData("/taken", new byte[] {(byte) i});
    }

    assertEquals(ConnectionState.SUSPENDED, first.state(), "it has not taken the session back yet");
    assertFalse(joinedStates.states().contains(ConnectionState.SUSPENDED), joinedStates.states().toString());
  }

  @Test
  void aWrongPasswordLeavesTheSessionAloneAndTheClientOpensOneOfItsOwn() throws Exception {
    client.create("/mine", NONE, CreateMode.EPHEMERAL);
    byte[] wrong = client.sessionPassword();
    wrong[0] ^= 1;

    CorralClient impostor = joining(client.sessionId(), wrong);
    awaitNewSessionAfterLost(impostor);

    assertNotEquals(client.sessionId(), impostor.sessionId());
    assertEquals(client.sessionId(), client.exists("/mine").orElseThrow().ephemeralOwner());
    client.setData("/mine", NONE); // still the session's own client
    assertEquals(ConnectionState.CONNECTED, client.state());
  }

  @Test
  void anExpiredSessionCannotBeReattached() throws Exception {
    CorralClient gone = connect(CorralClient.builder());
    long session = gone.sessionId();
    byte[] password = gone.sessionPassword();
    assertEquals(16, password.length, "a password is handed out with the session");
    gone.close();

    CorralClient late = joining(session, password);
    awaitNewSessionAfterLost(late);

    assertNotEquals(session, late.sessionId());
    late.create("/late", NONE, CreateMode.EPHEMERAL);
    assertEquals(late.sessionId(), client.exists("/late").orElseThrow().ephemeralOwner());
  }

  /** A client that asked to re-attach a session it cannot have: LOST, then connected with a new one. */
  /** A client asked to re-attach {@code session}, not yet waited for. */
  private CorralClient joining(long session, byte[] password) {
    CorralClient c = CorralClient.builder().session(session, password).connectString(server.getConnectString()).build();
    others.add(c);
    return c;
  }

  private static void awaitNewSessionAfterLost(CorralClient c) {
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> c.state() == ConnectionState.RECONNECTED);
  }

  @Test
  void sessionTimeoutIsTheOneTheServerNegotiated() throws Exception {
    Duration tick = server.getTick();
    assertEquals(tick.multipliedBy(2), connect(CorralClient.builder(), Duration.ofMillis(1)).sessionTimeout(),
        "raised to the server's minimum");
    assertEquals(tick.multipliedBy(20), connect(CorralClient.builder(), Duration.ofDays(1)).sessionTimeout(),
        "cut to the server's maximum");
    assertEquals(Duration.ofSeconds(10), client.sessionTimeout());
  }

  @Test
  void aListenerAddedAfterConnectingHearsNothingOfThePastButStateIsConnected() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client.addConnectionStateListener(recorder);
    assertEquals(ConnectionState.CONNECTED, client.state());
    client.sync("/"); // a round trip through the event thread
    assertEquals(List.of(), recorder.states());
  }

  /**
   * A blocking call's answer waits for the event executor only when events are
   * queued ahead of it: a user's executor busy with other work does not stall
   * plain calls while the client has nothing to deliver.
   */
  @Test
  void blockingCallsReturnWhileTheEventExecutorIsBusyElsewhere() throws Exception {
    ExecutorService userPool = Executors.newSingleThreadExecutor();
    CountDownLatch release = new CountDownLatch(1);
    try {
      CorralClient c = connect(CorralClient.builder().executor(userPool));
      c.sync("/"); // answered after the CONNECTED notice was delivered
      CountDownLatch busy = new CountDownLatch(1);
      userPool.execute(() -> {
        busy.countDown();
        awaitQuietly(release);
      });
      assertTrue(busy.await(WAIT_SECONDS, TimeUnit.SECONDS));

      // on a thread of its own, so that a call stuck behind the busy executor fails the test instead of hanging it
      CompletableFuture<byte[]> read = new CompletableFuture<>();
      new Thread(() -> {
        try {
          c.create("/busy", "v".getBytes(), CreateMode.PERSISTENT);
          read.complete(c.getData("/busy").data());
        } catch (Exception e) {
          read.completeExceptionally(e);
        }
      }, "blocking-caller").start();
      assertArrayEquals("v".getBytes(), read.get(WAIT_SECONDS, TimeUnit.SECONDS));
    } finally {
      release.countDown();
      userPool.shutdown();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void blockUntilConnectedReturnsFalseWhenNoServerAnswers() throws Exception {
    server.stop();
    CorralClient lonely = CorralClient.builder().connectString(server.getConnectString()).build();
    others.add(lonely);
    assertFalse(lonely.blockUntilConnected(300, TimeUnit.MILLISECONDS));
    assertEquals(ConnectionState.SUSPENDED, lonely.state());
    assertEquals(0, lonely.sessionId());
    server.start();
    assertTrue(lonely.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(ConnectionState.CONNECTED, lonely.state());
  }

  @Test
  void everyOperationAfterCloseFailsWithClientClosed() throws Exception {
    client.create("/n", NONE, CreateMode.PERSISTENT);
    Watcher watcher = event -> { };
    client.getData("/n", watcher);
    client.close();
    assertThrows(ClientClosedException.class, () -> client.create("/m", NONE, CreateMode.PERSISTENT));
    assertThrows(ClientClosedException.class,
        () -> client.create("/m", NONE, CreateOptions.builder(CreateMode.PERSISTENT_SEQUENTIAL).withProtection().build()));
    assertThrows(ClientClosedException.class, () -> client.getData("/n"));
    assertThrows(ClientClosedException.class, () -> client.setData("/n", NONE));
    assertThrows(ClientClosedException.class, () -> client.delete("/n"));
    assertThrows(ClientClosedException.class, () -> client.getChildren("/"));
    assertThrows(ClientClosedException.class, () -> client.sync("/"));
    assertThrows(ClientClosedException.class, () -> client.addWatch("/n", AddWatchMode.PERSISTENT, watcher));
    assertThrows(ClientClosedException.class, () -> client.removeWatches("/n", watcher, WatcherType.ANY));
    ExecutionException async = assertThrows(ExecutionException.class,
        () -> client.async().exists("/n").get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertInstanceOf(ClientClosedException.class, async.getCause());
  }

  @Test
  void aNamespaceIsRelativeAndWithoutTrailingSlash() {
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace("/app"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace("app/"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace(""));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().namespace("a//b"));
    CorralClient.builder().namespace("app/sub");
  }

  @Test
  void aNamespacedClientSeesItsRootAsSlash() throws Exception {
    CorralClient spaced = connect(CorralClient.builder().namespace("app/sub"));
    Created created = spaced.create("/x", NONE, CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
    assertEquals("/x", created.path());
    assertEquals(List.of("x"), spaced.getChildren("/"));
    assertTrue(client.exists("/app/sub/x").isPresent());
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    spaced.exists("/x", events::add);
    client.delete("/app/sub/x");
    assertEquals("/x", events.poll(WAIT_SECONDS, TimeUnit.SECONDS).path());
  }

  /** A connected client whose connect string carries {@code chroot}. */
  private CorralClient chrooted(String chroot) throws InterruptedException {
    CorralClient chrooted = CorralClient.builder().connectString(server.getConnectString() + chroot)
        .sessionTimeout(Duration.ofSeconds(10)).build();
    others.add(chrooted);
    assertTrue(chrooted.blockUntilConnected(WAIT_SECONDS, TimeUnit.SECONDS));
    return chrooted;
  }

  @Test
  void aChrootInTheConnectStringRootsEveryPathAsZooKeepersDoes() throws Exception {
    CorralClient chrooted = chrooted("/tenant/a");
    assertEquals("/x", chrooted.create("/x", NONE, CreateMode.PERSISTENT).path());
    assertEquals(List.of("x"), client.getChildren("/tenant/a"));
    assertEquals(List.of("x"), chrooted.getChildren("/"));
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    chrooted.getData("/x", events::add);
    client.setData("/tenant/a/x", NONE);
    assertEquals("/x", events.poll(WAIT_SECONDS, TimeUnit.SECONDS).path());

    CorralClient inside = CorralClient.builder().connectString(server.getConnectString() + "/tenant/a")
        .namespace("app").sessionTimeout(Duration.ofSeconds(10)).build();
    others.add(inside);
    inside.create("/y", NONE, CreateMode.PERSISTENT);
    assertTrue(client.exists("/tenant/a/app/y").isPresent(), "a namespace lies inside the chroot");
  }

  @Test
  void aClosingClientsWatcherHearsItsOwnEphemeralNodeGo() throws Exception {
    CorralClient closing = connect(CorralClient.builder());
    closing.create("/mine", NONE, CreateMode.EPHEMERAL);
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    closing.exists("/mine", events::add);

    closing.close();

    WatchedEvent deleted = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertNotNull(deleted, "no event");
    assertEquals(new WatchedEvent(EventType.NODE_DELETED, "/mine", deleted.zxid()), deleted);
  }

  @Test
  void aCreatedPathsLengthCountsTheNamespaceAndIsRefusedBeforeSending() throws Exception {
    FaultInjector network = new FaultInjector();
    CorralClient spaced = connect(CorralClient.builder().namespace("ns").interceptor(network));
    String longest = "/" + "x".repeat(PathRules.MAX_PATH_BYTES - "/ns/".length()); // "/ns" + it: 4,096 bytes
    int sentBefore = network.operationsSent();

    InvalidPathException refused = assertThrows(InvalidPathException.class,
        () -> spaced.create(longest + "x", NONE, CreateMode.PERSISTENT));

    assertTrue(refused.getMessage().contains("longer than 4096 bytes"), refused.getMessage());
    assertEquals(0, network.operationsSent() - sentBefore, "nothing sent");
    assertEquals(longest, spaced.create(longest, NONE, CreateMode.PERSISTENT).path());
    assertTrue(spaced.exists(longest + "x").isEmpty(), "a read may name a longer path");
  }

  @Test
  void deletingTheRootUnderAChrootOrNamespaceFailsAndLeavesThatNode() throws Exception {
    CorralClient chrooted = chrooted("/jail");
    client.create("/jail", NONE, CreateMode.PERSISTENT);
    CorralClient spaced = connect(CorralClient.builder().namespace("jail"));

    for (CorralClient rooted : List.of(chrooted, spaced)) {
      InvalidArgumentException refused = assertThrows(InvalidArgumentException.class, () -> rooted.delete("/"));
      assertTrue(refused.getMessage().contains("root"), refused.getMessage());
      assertThrows(InvalidArgumentException.class, () -> rooted.multi(List.of(Op.delete("/", -1))));
    }
    assertTrue(client.exists("/jail").isPresent());
    assertEquals("/x", chrooted.create("/x", NONE, CreateMode.PERSISTENT).path());
  }

  @Test
  void aConnectStringsChrootMustBeAPath() {
    ConnectString parsed = ConnectString.parse("h1:7181,[::1]:7182/app/sub");
    assertEquals(2, parsed.servers().size());
    assertEquals("/app/sub", parsed.chroot());
    assertEquals("", ConnectString.parse("h1:7181/").chroot(), "a bare slash is no chroot, as in ZooKeeper");
    assertEquals("", ConnectString.parse("h1:7181").chroot());
    IllegalArgumentException trailing = assertThrows(IllegalArgumentException.class,
        () -> CorralClient.builder().connectString("h1:7181/app/"));
    assertTrue(trailing.getMessage().contains("chroot"), trailing.getMessage());
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().connectString("h1:7181/a//b"));
    assertThrows(IllegalArgumentException.class, () -> CorralClient.builder().connectString("/app"));
  }

  @Test
  void aListingLargerThanGrpcsDefaultMessageComesWhole() throws Exception {
    client.create("/crowd", NONE, CreateMode.PERSISTENT);
    int children = 4500;
    List<CompletableFuture<Created>> creates = new ArrayList<>();
    for (int i = 0; i < children; i++) { // names of 1,000 characters: a listing of 4.5 MB
      creates.add(client.async().create("/crowd/" + String.format("%01000d", i), NONE,
          CreateOptions.of(CreateMode.PERSISTENT)));
    }
    CompletableFuture.allOf(creates.toArray(CompletableFuture[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);

    // over 4 MiB, which a server answers a client that does not say it takes more with RESPONSE_TOO_LARGE
    assertEquals(children, client.getChildren("/crowd").size());
  }

  @Test
  void creatingWithParentContainersWhenTheParentsExistCreatesJustTheNode() throws Exception {
    client.create("/p", NONE, CreateMode.PERSISTENT);
    client.create("/p/q", NONE, CreateMode.PERSISTENT);
    CreateOptions options = CreateOptions.builder(CreateMode.EPHEMERAL_SEQUENTIAL).creatingParentContainers().build();
    Created created = client.create("/p/q/n-", NONE, options);
    assertTrue(created.path().startsWith("/p/q/n-"));
    assertFalse(client.exists("/p").orElseThrow().ephemeralOwner() != 0);
    client.create("/p/q/r", NONE, CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
  }

  @Test
  void protectionNamesANonSequentialNodeToo() throws Exception {
    client.create("/prot", NONE, CreateMode.PERSISTENT);
    Created created = client.create("/prot/node", NONE,
        CreateOptions.builder(CreateMode.EPHEMERAL).withProtection().build());
    String name = Paths.name(created.path());
    assertTrue(Protection.isProtected(name), name);
    assertEquals("node", Protection.unprotected(name));
    assertEquals(List.of(name), client.getChildren("/prot"));
  }

  @Test
  void aBlockingCallInsideACallbackOfAnAsyncCallDoesNotDeadlock() throws Exception {
    client.create("/a", "a".getBytes(), CreateMode.PERSISTENT);
    client.create("/b", "b".getBytes(), CreateMode.PERSISTENT);
    CompletableFuture<byte[]> chained = client.async().getData("/a").thenApply(data -> {
      try {
        return client.getData("/b").data();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertArrayEquals("b".getBytes(), chained.get(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aBlockingCallInACallbackChainedInsideAWatcherDoesNotDeadlock() throws Exception {
    client.create("/w", NONE, CreateMode.PERSISTENT);
    client.create("/other", "o".getBytes(), CreateMode.PERSISTENT);
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    client.getData("/w", event -> client.async().getData("/w").thenAccept(data -> {
      try {
        result.complete(client.getData("/other").data());
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    }));
    client.setData("/w", "changed".getBytes());
    assertArrayEquals("o".getBytes(), result.get(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(ConnectionState.CONNECTED, client.state());
  }

  @Test
  void aWatcherMayWaitForAnAsyncCallItMade() throws Exception {
    client.create("/v", NONE, CreateMode.PERSISTENT);
    CompletableFuture<Integer> seen = new CompletableFuture<>();
    client.exists("/v", event -> {
      try {
        seen.complete(client.async().exists("/v").get(WAIT_SECONDS, TimeUnit.SECONDS).orElseThrow().version());
      } catch (Exception e) {
        seen.completeExceptionally(e);
      }
    });
    client.setData("/v", "1".getBytes());
    assertEquals(1, seen.get(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void aRemovedPersistentWatchHearsNoMore() throws Exception {
    client.create("/pw", NONE, CreateMode.PERSISTENT);
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    Watcher watcher = events::add;
    client.addWatch("/pw", AddWatchMode.PERSISTENT, watcher);
    client.setData("/pw", "1".getBytes());
    assertEquals("/pw", events.poll(WAIT_SECONDS, TimeUnit.SECONDS).path());
    client.removeWatches("/pw", watcher, WatcherType.PERSISTENT);
    assertThrows(NoWatcherException.class, () -> client.removeWatches("/pw", watcher, WatcherType.PERSISTENT));
    client.setData("/pw", "2".getBytes());
    BlockingQueue<WatchedEvent> marker = new LinkedBlockingQueue<>();
    client.addWatch("/pw", AddWatchMode.PERSISTENT, marker::add);
    client.setData("/pw", "3".getBytes());
    marker.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(List.of(new WatchedEvent(EventType.PERSISTENT_WATCH_REMOVED, "/pw", WatchedEvent.NO_ZXID)),
        new ArrayList<>(events), "told of the removal, then no event");
  }

  @Test
  void aRemovedRecursiveWatchIsRemovedWithAny() throws Exception {
    client.create("/rw", NONE, CreateMode.PERSISTENT);
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    Watcher watcher = events::add;
    client.addWatch("/rw", AddWatchMode.PERSISTENT_RECURSIVE, watcher);
    client.removeWatches("/rw", watcher, WatcherType.ANY);
    client.create("/rw/child", NONE, CreateMode.PERSISTENT);
    BlockingQueue<WatchedEvent> marker = new LinkedBlockingQueue<>();
    client.addWatch("/rw", AddWatchMode.PERSISTENT_RECURSIVE, marker::add);
    client.delete("/rw/child");
    marker.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    assertEquals(List.of(new WatchedEvent(EventType.PERSISTENT_WATCH_REMOVED, "/rw", WatchedEvent.NO_ZXID)),
        new ArrayList<>(events), "told of the removal, then no event");
  }

  @Test
  void emptyDataIsReadBackEmpty() throws Exception { // null data: OperationsTest.nullDataIsNoData
    client.create("/empty", NONE, CreateMode.PERSISTENT);
    assertArrayEquals(NONE, client.getData("/empty").data());
    assertEquals(0, client.exists("/empty").orElseThrow().dataLength());
  }
}
