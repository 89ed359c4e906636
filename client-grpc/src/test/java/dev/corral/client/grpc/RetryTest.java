package dev.corral.client.grpc;

import static dev.corral.client.ConnectionState.RECONNECTED;
import static dev.corral.client.ConnectionState.SUSPENDED;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionLossException;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.WatchedEvent;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RetryTest {
  private static final byte[] NONE = new byte[0];

  private TestingServer server;
  private FaultInjector faults;
  private StateRecorder states;
  private CorralClient client;

  @BeforeEach
  void start() throws InterruptedException {
    server = new TestingServer();
    faults = new FaultInjector();
    states = new StateRecorder();
    client = CorralClient.builder().connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10)).interceptor(faults).build();
    client.addConnectionStateListener(states);
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
  }

  @AfterEach
  void closeAll() {
    client.close();
    server.close();
  }

  private void loseNextAnswer(java.util.function.Predicate<dev.corral.proto.v1.Response> which) {
    faults.dropOnce(message -> message.hasResponse() && which.test(message.getResponse()));
    faults.dropped().thenRun(faults::cutStream);
  }

  @Test
  void aReadWhoseAnswerIsLostIsRetriedAfterTheReconnect() throws Exception {
    client.create("/r", "data".getBytes(), CreateMode.PERSISTENT);
    loseNextAnswer(response -> response.hasGetData());

    assertArrayEquals("data".getBytes(), client.getData("/r").data());
    assertTrue(faults.dropped().isDone());
    states.awaitTail(SUSPENDED, RECONNECTED);
  }

  @Test
  void aDeleteWhoseAnswerIsLostSucceedsThoughItsRetryFindsNoNode() throws Exception {
    client.create("/d", NONE, CreateMode.PERSISTENT);
    loseNextAnswer(response -> response.hasDelete());

    client.delete("/d", 0);

    assertTrue(faults.dropped().isDone());
    assertTrue(client.exists("/d").isEmpty());
  }

  @Test
  void aCreateWithoutProtectionWhoseAnswerIsLostReportsConnectionLoss() throws Exception {
    loseNextAnswer(response -> response.hasCreate());

    assertThrows(ConnectionLossException.class, () -> client.create("/c", NONE, CreateMode.PERSISTENT));
    assertTrue(client.exists("/c").isPresent(), "it did happen; the caller was told it may have");
  }

  @Test
  void aSilentServerIsDetectedByOverduePingsAndTheSessionResumes() throws Exception {
    long sessionId = client.sessionId();
    faults.silenceCurrentStream();
    states.awaitTail(SUSPENDED, RECONNECTED);
    assertEquals(sessionId, client.sessionId());
  }

  @Test
  void aWatcherMayCallTheClientBlockingWithoutDeadlock() throws Exception {
    client.create("/n", "v0".getBytes(), CreateMode.PERSISTENT);
    CompletableFuture<String> readInWatcher = new CompletableFuture<>();
    client.getData("/n", (WatchedEvent event) -> {
      try {
        readInWatcher.complete(event.type() + " " + new String(client.getData("/n").data()));
      } catch (Exception e) {
        readInWatcher.completeExceptionally(e);
      }
    });
    client.setData("/n", "v1".getBytes(), -1);
    assertEquals(EventType.NODE_DATA_CHANGED + " v1", readInWatcher.get(30, TimeUnit.SECONDS));
  }
}
