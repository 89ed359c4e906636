package dev.corral.recipes.lock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationClient;
import dev.corral.client.grpc.CorralClient;
import dev.corral.client.grpc.RetryPolicy;
import dev.corral.testing.TestingCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A lock held through the loss of the ensemble's leader stays with the same session. */
class LockFailoverTest {
  private TestingCluster cluster;
  private final List<CoordinationClient> clients = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void closeAll() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(30, TimeUnit.SECONDS);
    clients.forEach(CoordinationClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A client attached to {@code member}'s server: clients list every member
   * and pick one at random, so a few may be opened (and closed) before one lands there.
   */
  private CoordinationClient connectAttachedTo(int member) throws InterruptedException {
    for (int attempt = 0; attempt < 50; attempt++) {
      CoordinationClient client = connect();
      if (cluster.memberAttaching(client.sessionId()).orElse(-1) == member) {
        return client;
      }
      clients.remove(client);
      client.close();
    }
    throw new AssertionError("no client of 50 attached to member " + member);
  }

  private CoordinationClient connect() throws InterruptedException {
    CoordinationClient client = CorralClient.builder()
        .connectString(cluster.getConnectString())
        .sessionTimeout(Duration.ofSeconds(10))
        .retryPolicy(RetryPolicy.exponentialBackoff(10, Duration.ofMillis(100), Duration.ofSeconds(1)))
        .build();
    clients.add(client);
    assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS));
    return client;
  }

  @Test
  void aMutexHeldThroughALeaderFailoverStaysWithItsSessionAndPassesOnInOrder() throws Exception {
    cluster = new TestingCluster(3);
    int leader = cluster.awaitLeader();
    CoordinationClient holderClient = connectAttachedTo(leader); // so that the failover reaches the holder
    List<ConnectionState> holderConnection = new CopyOnWriteArrayList<>();
    holderClient.addConnectionStateListener((client, state) -> holderConnection.add(state));
    CoordinationClient waiterClient = connect();
    InterProcessMutex holder = new InterProcessMutex(holderClient, "/locks/failover");
    InterProcessMutex waiter = new InterProcessMutex(waiterClient, "/locks/failover");
    List<LockState> holderStates = new CopyOnWriteArrayList<>();
    holder.addListener(holderStates::add);
    holder.acquire();
    long session = holderClient.sessionId();
    long token = holder.fencingToken();
    Future<Long> waiting = threads.submit(() -> {
      if (!waiter.acquire(2, TimeUnit.MINUTES)) {
        return -1L;
      }
      long waiterToken = waiter.fencingToken();
      waiter.release();
      return waiterToken;
    });
    await().atMost(Duration.ofSeconds(60)).until(() -> holder.getParticipantNodes().size() == 2);

    cluster.killServer(leader);
    cluster.awaitLeader();
    cluster.restartServer(leader);

    await().atMost(Duration.ofSeconds(60)).until(() -> holderConnection.contains(ConnectionState.RECONNECTED));
    assertTrue(holderConnection.contains(ConnectionState.SUSPENDED), "the holder's server died under it");
    await().atMost(Duration.ofSeconds(60)).until(() -> holder.state() == LockState.HELD);
    assertEquals(session, holderClient.sessionId());
    assertTrue(holder.isAcquiredInThisProcess());
    assertFalse(holderStates.contains(LockState.LOST), "states seen: " + holderStates);
    if (waiting.isDone()) {
      throw new AssertionError("the waiter finished while the lock was held: " + waiting.get());
    }
    List<String> nodes = holder.getParticipantNodes();
    assertEquals(2, nodes.size(), "one node each, no duplicate after the failover: " + nodes);
    assertEquals(session, holderClient.exists(nodes.get(0)).orElseThrow().ephemeralOwner());

    holder.release();
    assertTrue(waiting.get(60, TimeUnit.SECONDS) > token, "the next holder's fencing token is larger");
  }
}
