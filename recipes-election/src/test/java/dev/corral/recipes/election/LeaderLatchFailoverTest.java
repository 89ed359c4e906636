package dev.corral.recipes.election;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A LeaderLatch keeps exactly one leader, the same one, through the loss of the ensemble's leader. */
class LeaderLatchFailoverTest {
  private TestingCluster cluster;
  private final List<CoordinationClient> clients = new ArrayList<>();
  private final List<LeaderLatch> latches = new ArrayList<>();
  private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void closeAll() throws InterruptedException {
    sampler.shutdownNow();
    sampler.awaitTermination(10, TimeUnit.SECONDS);
    latches.forEach(LeaderLatch::close);
    clients.forEach(CoordinationClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void exactlyOneLatchLeadsBeforeDuringAndAfterALeaderServerFailover() throws Exception {
    cluster = new TestingCluster(3);
    int leader = cluster.awaitLeader();
    List<String> becameLeader = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      CoordinationClient client = connectAttachedTo(leader); // so that the failover reaches every contender
      LeaderLatch latch = new LeaderLatch(client, "/election/failover", "contender-" + i);
      String id = latch.getId();
      latch.addListener(new LeaderLatchListener() {
        @Override
        public void isLeader() {
          becameLeader.add(id);
        }

        @Override
        public void notLeader() {}
      });
      latches.add(latch);
      latch.start();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> leaders() == 1);
    String first = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow().getId();
    AtomicInteger moreThanOne = new AtomicInteger();
    sampler.scheduleAtFixedRate(() -> {
      if (leaders() > 1) {
        moreThanOne.incrementAndGet();
      }
    }, 0, 5, TimeUnit.MILLISECONDS);

    cluster.killServer(leader);
    cluster.awaitLeader();
    // a write through any member proves the ensemble serves again (a setData is retried by the client
    // when a write in flight during the failover comes back as outcome unknown)
    clients.get(0).setData("/election/failover", new byte[0]);
    cluster.restartServer(leader);
    await().atMost(Duration.ofSeconds(60)).until(() -> clients.stream()
        .allMatch(c -> c.state() == ConnectionState.RECONNECTED)); // every contender's server died under it

    await().atMost(Duration.ofSeconds(60)).until(() -> leaders() == 1);
    assertEquals(0, moreThanOne.get(), "two latches led at once");
    String after = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow().getId();
    assertEquals(first, after, "the sessions survived, so leadership must not move");
    // a leader whose client was on the dead server steps down while SUSPENDED (as Curator's latch does)
    // and takes leadership back when its session is resumed; no other contender ever leads
    assertEquals(List.of(first), becameLeader.stream().distinct().toList());
  }

  /**
   * A client attached to {@code member}'s server: clients list every member
   * and pick one at random, so a few may be opened (and closed) before one lands there.
   */
  private CoordinationClient connectAttachedTo(int member) throws InterruptedException {
    for (int attempt = 0; attempt < 50; attempt++) {
      CoordinationClient client = CorralClient.builder()
          .connectString(cluster.getConnectString())
          .sessionTimeout(Duration.ofSeconds(10))
          .retryPolicy(RetryPolicy.exponentialBackoff(10, Duration.ofMillis(100), Duration.ofSeconds(1)))
          .build();
      assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS));
      if (cluster.memberAttaching(client.sessionId()).orElse(-1) == member) {
        clients.add(client);
        return client;
      }
      client.close();
    }
    throw new AssertionError("no client of 50 attached to member " + member);
  }

  private int leaders() {
    return (int) latches.stream().filter(LeaderLatch::hasLeadership).count();
  }
}
