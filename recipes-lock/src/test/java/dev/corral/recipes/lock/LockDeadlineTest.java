package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;
import dev.corral.client.grpc.CorralClient;
import dev.corral.testing.TestingServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A timed acquire keeps its own deadline when the server goes away while it waits. */
class LockDeadlineTest {
  /** How long the waiter's calls wait for a connection: far beyond the acquire's own 3 s. */
  private static final Duration PATIENCE = Duration.ofMinutes(10);

  private final TestingServer server = new TestingServer();
  private final List<CoordinationClient> clients = new ArrayList<>();

  @AfterEach
  void closeAll() {
    try {
      clients.forEach(CoordinationClient::close);
    } finally {
      server.close();
    }
  }

  private CoordinationClient connect(Duration connectionTimeout) throws InterruptedException {
    CoordinationClient client = CorralClient.builder()
        .connectString(server.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10))
        .connectionTimeout(connectionTimeout)
        .build();
    clients.add(client);
    assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS));
    return client;
  }

  @Test
  void aTimedAcquireUnderWayWhenTheServerGoesEndsAtItsDeadline() throws Exception {
    new InterProcessMutex(connect(Duration.ofSeconds(15)), "/locks/deadline").acquire();
    CoordinationClient waiterClient = connect(PATIENCE);
    InterProcessMutex waiter = new InterProcessMutex(waiterClient, "/locks/deadline");
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    Thread waiting = new Thread(() -> {
      try {
        result.complete(waiter.acquire(3, TimeUnit.SECONDS));
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    });
    waiting.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> waitsForItsTurn(waiting));

    server.stop();

    assertFalse(result.get(PATIENCE.dividedBy(5).toSeconds(), TimeUnit.SECONDS));
    assertEquals(ConnectionState.SUSPENDED, waiterClient.state(),
        "the acquire ended at its own deadline, while the session could still live, not once it was lost");
  }

  /** True while {@code thread} is parked in a lock waiter's wait for its turn (NodeTurn). */
  private static boolean waitsForItsTurn(Thread thread) {
    return thread.getState() == Thread.State.TIMED_WAITING && Arrays.stream(thread.getStackTrace())
        .anyMatch(frame -> frame.getClassName().endsWith(".NodeTurn"));
  }
}
