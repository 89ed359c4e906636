package dev.corral.client.grpc;

import static dev.corral.client.ConnectionState.CONNECTED;
import static dev.corral.client.ConnectionState.LOST;
import static dev.corral.client.ConnectionState.RECONNECTED;
import static dev.corral.client.ConnectionState.SUSPENDED;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionLossException;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.SessionExpiredException;
import dev.corral.client.WatchedEvent;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConnectionStateTest {
  private static final Duration TICK = Duration.ofMillis(200);
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(2);

  private TestingServer server;
  private CorralClient client;
  private CorralClient other;

  @BeforeEach
  void startServer() {
    server = new TestingServer(0, TICK);
  }

  @AfterEach
  void closeAll() {
    for (AutoCloseable c : new AutoCloseable[] {client, other, server}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }
  }

  /** A server whose restarts (1-3 s) fit well within a session timeout of 10 s. */
  private void useSlowTickServer() {
    server.close();
    server = new TestingServer(0, TestingServer.DEFAULT_TICK);
  }

  private CorralClient connect(StateRecorder recorder) throws InterruptedException {
    return connect(recorder, SESSION_TIMEOUT);
  }

  private CorralClient connect(StateRecorder recorder, Duration sessionTimeout) throws InterruptedException {
    CorralClient c = CorralClient.builder()
        .connectString(server.getConnectString())
        .sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10))
        .build();
    if (recorder != null) {
      c.addConnectionStateListener(recorder);
    }
    assertTrue(c.blockUntilConnected(30, TimeUnit.SECONDS));
    return c;
  }

  @Test
  void firstConnectionIsReportedAsConnected() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = CorralClient.builder().connectString(server.getConnectString()).build();
    client.addConnectionStateListener(recorder);
    recorder.awaitCount(CONNECTED, 1);
    assertEquals(List.of(CONNECTED), recorder.states());
    assertNotEquals(0, client.sessionId());
    assertEquals(CONNECTED, client.state());
  }

  @Test
  void serverRestartedWithinTheTimeoutKeepsTheSessionAndItsEphemerals() throws Exception {
    useSlowTickServer();
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder, Duration.ofSeconds(10));
    long sessionId = client.sessionId();
    client.create("/mine", new byte[0], CreateMode.EPHEMERAL);

    server.stop();
    recorder.awaitTail(SUSPENDED);
    server.start();
    recorder.awaitTail(SUSPENDED, RECONNECTED);

    assertEquals(sessionId, client.sessionId());
    assertEquals(sessionId, client.exists("/mine").orElseThrow().ephemeralOwner());
    assertEquals(List.of(CONNECTED, SUSPENDED, RECONNECTED), recorder.states());
  }

  @Test
  void serverDownLongerThanTheSessionTimeoutLosesTheSessionThenOpensANewOne() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder);
    long sessionId = client.sessionId();

    server.stop();
    recorder.awaitTail(SUSPENDED, LOST);
    server.start();
    recorder.awaitTail(SUSPENDED, LOST, RECONNECTED);

    assertNotEquals(sessionId, client.sessionId());
    client.create("/after", new byte[0], CreateMode.EPHEMERAL);
    assertEquals(client.sessionId(), client.exists("/after").orElseThrow().ephemeralOwner());
  }

  @Test
  void aServerWhoseDataWasWipedIsJoinedWithANewSessionOnceItAloneAnswers() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder);
    client.create("/seen", new byte[0], CreateMode.PERSISTENT); // the client has seen a zxid the new server has not
    int port = server.getPort();

    server.close(); // its data directory goes with it
    recorder.awaitTail(SUSPENDED, LOST);
    server = new TestingServer(port, TICK); // an empty server at the same address
    recorder.awaitTail(SUSPENDED, LOST, RECONNECTED);

    assertTrue(client.exists("/seen").isEmpty(), "the new server's tree is its own");
    client.create("/after", new byte[0], CreateMode.EPHEMERAL);
    assertEquals(client.sessionId(), client.exists("/after").orElseThrow().ephemeralOwner());
  }

  @Test
  void sessionGivenUpWhileTheServerWasDownIsClosedOnceConnectedAgain() throws Exception {
    useSlowTickServer();
    // the server restores the old session with a fresh timeout on restart: without
    // the client closing it, its ephemeral would stay for this long after that
    Duration sessionTimeout = Duration.ofSeconds(10);
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder, sessionTimeout);
    long oldSession = client.sessionId();
    client.create("/held", new byte[0], CreateMode.EPHEMERAL);

    server.stop();
    recorder.awaitTail(SUSPENDED, LOST);
    server.start();
    other = connect(null);
    recorder.awaitTail(SUSPENDED, LOST, RECONNECTED);

    await("the abandoned session's ephemeral node is deleted").atMost(sessionTimeout.dividedBy(3))
        .until(() -> other.exists("/held").isEmpty());
    assertNotEquals(oldSession, client.sessionId());
    client.create("/held", new byte[0], CreateMode.EPHEMERAL);
    assertEquals(client.sessionId(), other.exists("/held").orElseThrow().ephemeralOwner());
    assertEquals(List.of(CONNECTED, SUSPENDED, LOST, RECONNECTED), recorder.states());
  }

  @Test
  void expiredSessionIsLostThenReplacedByANewSession() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder);
    other = connect(null);
    long sessionId = client.sessionId();
    client.create("/eph", new byte[0], CreateMode.EPHEMERAL);

    server.expireSession(sessionId);
    recorder.awaitTail(LOST, RECONNECTED);

    assertEquals(List.of(CONNECTED, LOST, RECONNECTED), recorder.states());
    assertNotEquals(sessionId, client.sessionId());
    assertTrue(other.exists("/eph").isEmpty(), "the expired session's ephemeral is gone");
  }

  @Test
  void oneShotWatchesOutliveAnExpiredSessionAndHearWhatChangedSince() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder);
    other = connect(null);
    other.create("/watched", new byte[0], CreateMode.PERSISTENT);
    other.create("/untouched", new byte[0], CreateMode.PERSISTENT);
    BlockingQueue<WatchedEvent> changed = new LinkedBlockingQueue<>();
    BlockingQueue<WatchedEvent> later = new LinkedBlockingQueue<>();
    client.getData("/watched", changed::add);
    client.getData("/untouched", later::add);

    server.expireSession(client.sessionId());
    other.setData("/watched", new byte[] {1}); // while the old session is gone: before or after the new one
    recorder.awaitTail(LOST, RECONNECTED);

    WatchedEvent missed = changed.poll(30, TimeUnit.SECONDS);
    assertNotNull(missed, "the change made while the session was lost was told");
    assertEquals(new WatchedEvent(EventType.NODE_DATA_CHANGED, "/watched", missed.zxid()), missed);
    other.delete("/untouched");
    WatchedEvent deleted = later.poll(30, TimeUnit.SECONDS);
    assertNotNull(deleted, "the untouched watch heard the deletion");
    assertEquals(new WatchedEvent(EventType.NODE_DELETED, "/untouched", deleted.zxid()), deleted,
        "an untouched watch stays armed on the new session");
  }

  @Test
  void operationsInFlightWhenTheSessionExpiresFailWithSessionExpired() throws Exception {
    StateRecorder recorder = new StateRecorder();
    client = connect(recorder);
    server.stop();
    recorder.awaitTail(SUSPENDED);
    CompletableFuture<?> waiting = client.async().create("/x", new byte[0],
        dev.corral.client.CreateOptions.of(CreateMode.PERSISTENT));
    ExecutionException failure = assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
    assertTrue(failure.getCause() instanceof SessionExpiredException, String.valueOf(failure.getCause()));
  }

  @Test
  void operationsWaitForTheFirstConnectionThenFailWithConnectionLoss() throws Exception {
    server.stop();
    client = CorralClient.builder()
        .connectString(server.getConnectString())
        .connectionTimeout(Duration.ofMillis(500))
        .retryPolicy(RetryPolicy.none())
        .build();
    assertEquals(SUSPENDED, client.state());
    assertEquals(0, client.sessionId());
    assertThrows(ConnectionLossException.class, () -> client.exists("/"));
  }

  @Test
  void operationsMadeBeforeTheFirstConnectionSucceedOnceConnected() throws Exception {
    server.stop();
    client = CorralClient.builder().connectString(server.getConnectString()).build();
    CompletableFuture<?> create = client.async().create("/early", new byte[0],
        dev.corral.client.CreateOptions.of(CreateMode.PERSISTENT));
    server.start();
    assertEquals("/early", ((dev.corral.client.Created) create.get(30, TimeUnit.SECONDS)).path());
  }

  @Test
  void listenersOnAnExecutorSeeEveryTransitionInOrder() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      useSlowTickServer();
      StateRecorder recorder = new StateRecorder();
      client = CorralClient.builder().connectString(server.getConnectString())
          .sessionTimeout(Duration.ofSeconds(10)).build();
      client.addConnectionStateListener(recorder, pool);
      recorder.awaitTail(CONNECTED);
      server.expireSession(client.sessionId());
      recorder.awaitTail(LOST, RECONNECTED);
      server.stop();
      recorder.awaitTail(SUSPENDED);
      server.start();
      recorder.awaitTail(SUSPENDED, RECONNECTED);
      assertEquals(List.of(CONNECTED, LOST, RECONNECTED, SUSPENDED, RECONNECTED), recorder.states());
    } finally {
      pool.shutdownNow();
    }
  }
}
