package dev.corral.client.grpc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.client.Code;
import dev.corral.client.ConnectionState;
import dev.corral.client.CoordinationException;
import dev.corral.client.CreateMode;
import dev.corral.client.EventType;
import dev.corral.client.Stat;
import dev.corral.client.WatchedEvent;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.testing.TestingCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A 3-member ensemble in this JVM: replication, failover, sessions across members, catch-up. */
class EnsembleTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private TestingCluster cluster;
  private final List<CorralClient> clients = new ArrayList<>();

  @AfterEach
  void closeAll() {
    clients.forEach(CorralClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  private CorralClient connect(String connectString, Duration sessionTimeout) throws InterruptedException {
    CorralClient client = CorralClient.builder()
        .connectString(connectString)
        .sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(20))
        .retryPolicy(RetryPolicy.exponentialBackoff(10, Duration.ofMillis(100), Duration.ofSeconds(1)))
        .build();
    clients.add(client);
    assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS), "connected to " + connectString);
    return client;
  }

  private int aFollower() {
    int leader = cluster.awaitLeader();
    return (leader + 1) % cluster.size();
  }

  @Test
  void writesTakenByAnyMemberAreSeenOnEveryMemberAfterSync() throws Exception {
    cluster = new TestingCluster(3);
    List<CorralClient> perMember = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      perMember.add(connect(cluster.getConnectString(i), Duration.ofSeconds(10)));
    }
    for (int i = 0; i < 3; i++) {
      perMember.get(i).create("/from-" + i, ("member " + i).getBytes(UTF_8), CreateMode.PERSISTENT);
    }
    for (CorralClient reader : perMember) {
      reader.sync("/");
      for (int i = 0; i < 3; i++) {
        assertArrayEquals(("member " + i).getBytes(UTF_8), reader.getData("/from-" + i).data());
      }
    }
    await().atMost(WAIT).until(() -> digests().stream().distinct().count() == 1);
    MemberStatus first = cluster.status(0);
    assertEquals(3, first.getSessions());
    assertEquals(4, first.getNodes());
  }

  @Test
  void aSessionOnAFollowerStaysAliveThroughItsForwardedHeartbeats() throws Exception {
    cluster = new TestingCluster(3);
    CorralClient client = connect(cluster.getConnectString(aFollower()), Duration.ofSeconds(3));
    client.create("/mine", new byte[0], CreateMode.EPHEMERAL);
    long session = client.sessionId();
    // over three session timeouts: only the follower hears this client, the leader expires sessions
    Thread.sleep(10_000);
    assertEquals(session, client.sessionId());
    assertTrue(client.exists("/mine").isPresent());
    assertEquals(session, client.exists("/mine").orElseThrow().ephemeralOwner());
  }

  @Test
  void whenTheLeaderDiesClientsMoveOnWithTheirSessionsEphemeralsAndWatches() throws Exception {
    cluster = new TestingCluster(3);
    int leader = cluster.awaitLeader();
    CorralClient onLeader = clientAttachedTo(leader);
    onLeader.create("/eph", "x".getBytes(UTF_8), CreateMode.EPHEMERAL);
    onLeader.create("/watched", new byte[0], CreateMode.PERSISTENT);
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    onLeader.getData("/watched", events::add);
    long session = onLeader.sessionId();
    CorralClient writer = connect(cluster.getConnectString(), Duration.ofSeconds(10));

    cluster.killServer(leader);
    int newLeader = cluster.awaitLeader();
    assertNotEquals(leader, newLeader);

    writer.setData("/watched", "after".getBytes(UTF_8));
    WatchedEvent event = events.poll(60, TimeUnit.SECONDS);
    assertEquals(EventType.NODE_DATA_CHANGED, event.type());
    await().atMost(WAIT).until(() -> onLeader.state() == dev.corral.client.ConnectionState.RECONNECTED
        || onLeader.state() == dev.corral.client.ConnectionState.CONNECTED);
    assertEquals(session, onLeader.sessionId());
    Stat eph = writer.exists("/eph").orElseThrow();
    assertEquals(session, eph.ephemeralOwner());
    onLeader.setData("/eph", "still mine".getBytes(UTF_8));
  }

  @Test
  void aClientWhoseOnlyMemberRestartsKeepsItsSessionAndWatchesWhileTheMemberCatchesUp() throws Exception {
    cluster = new TestingCluster(3);
    int member = aFollower();
    CorralClient onMember = connect(cluster.getConnectString(member), Duration.ofSeconds(10));
    CorralClient writer = connect(cluster.getConnectString((member + 1) % cluster.size()), Duration.ofSeconds(10));
    writer.create("/watched", new byte[0], CreateMode.PERSISTENT);
    onMember.sync("/watched");
    BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();
    onMember.getData("/watched", events::add);
    long session = onMember.sessionId();

    cluster.killServer(member);
    writer.setData("/watched", "while it was down".getBytes(UTF_8));
    cluster.restartServer(member); // it applies nothing until the leader tells it what is committed

    WatchedEvent event = events.poll(60, TimeUnit.SECONDS);
    assertEquals(EventType.NODE_DATA_CHANGED, event == null ? null : event.type(), "the watch survived");
    assertEquals(session, onMember.sessionId(), "the same session: the member was behind, not the session gone");
    assertEquals(dev.corral.client.ConnectionState.RECONNECTED, onMember.state());
  }

  @Test
  void aMinorityDownDoesNotStopWritesAndTheMemberCatchesUpWhenBack() throws Exception {
    cluster = new TestingCluster(3);
    int follower = aFollower();
    CorralClient client = connect(cluster.getConnectString(), Duration.ofSeconds(10));
    cluster.killServer(follower);
    for (int i = 0; i < 50; i++) {
      client.create("/n" + i, new byte[] {(byte) i}, CreateMode.PERSISTENT);
    }
    cluster.restartServer(follower);
    CorralClient onReturned = connect(cluster.getConnectString(follower), Duration.ofSeconds(10));
    onReturned.sync("/");
    assertEquals(50, onReturned.getChildren("/").stream().filter(c -> c.startsWith("n")).count());
    await().atMost(WAIT).until(() -> digests().stream().distinct().count() == 1);
  }

  @Test
  void aMemberBehindAPurgedLogCatchesUpFromASnapshotInstall() throws Exception {
    cluster = new TestingCluster(3, dev.corral.testing.TestingServer.DEFAULT_TICK, 20);
    int follower = aFollower();
    CorralClient client = connect(cluster.getConnectString(), Duration.ofSeconds(10));
    client.create("/before", new byte[0], CreateMode.PERSISTENT);
    cluster.killServer(follower);
    byte[] value = new byte[512 * 1024];
    for (int i = 0; i < 40; i++) { // 20 MiB: the leader's first 8 MiB segments are purged behind its snapshots
      value[0] = (byte) i;
      client.create("/s" + i, value, CreateMode.PERSISTENT);
    }
    cluster.restartServer(follower);
    await().atMost(WAIT).until(() -> digests().stream().distinct().count() == 1);
    assertTrue(cluster.server(follower).orElseThrow().core().snapshotsLoaded() > 0,
        "the returning member caught up through a snapshot install");
    CorralClient onReturned = connect(cluster.getConnectString(follower), Duration.ofSeconds(10));
    assertEquals(41, onReturned.getChildren("/").stream().filter(c -> c.startsWith("s") || c.equals("before"))
        .count());
    assertEquals(39, onReturned.getData("/s39").data()[0]);
    onReturned.create("/after-install", new byte[0], CreateMode.PERSISTENT);
    await().atMost(WAIT).until(() -> digests().stream().distinct().count() == 1);
  }

  @Test
  void aMajorityDownFailsWritesWithAClearErrorAndTheyWorkAgainWhenItReturns() throws Exception {
    cluster = new TestingCluster(3);
    int leader = cluster.awaitLeader();
    int survivor = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    CorralClient client = CorralClient.builder()
        .connectString(cluster.getConnectString(survivor))
        .sessionTimeout(Duration.ofSeconds(30))
        .retryPolicy(RetryPolicy.none())
        .build();
    clients.add(client);
    assertTrue(client.blockUntilConnected(60, TimeUnit.SECONDS));
    client.create("/ok", new byte[0], CreateMode.PERSISTENT);

    cluster.killServer(leader);
    cluster.killServer(other);
    CoordinationException failure = assertThrows(CoordinationException.class,
        () -> client.create("/no-quorum", new byte[0], CreateMode.PERSISTENT));
    assertTrue(failure.code() == Code.NOT_READY || failure.code() == Code.OPERATION_TIMEOUT
        || failure.code() == Code.CONNECTION_LOSS, "code " + failure.code());
    assertTrue(failure.getMessage() != null && !failure.getMessage().isBlank());

    cluster.restartServer(other);
    cluster.awaitLeader();
    await().atMost(WAIT).ignoreExceptions().until(() -> {
      client.setData("/ok", "back".getBytes(UTF_8));
      return true;
    });
    assertArrayEquals("back".getBytes(UTF_8), client.getData("/ok").data());
  }

  @Test
  void aMemberLeftWithoutAMajorityStopsServingSoItsClientHearsSuspendedThenLost() throws Exception {
    cluster = new TestingCluster(3);
    int leader = cluster.awaitLeader();
    int survivor = (leader + 1) % 3;
    int other = (leader + 2) % 3;
    CorralClient client = connect(cluster.getConnectString(survivor), Duration.ofSeconds(4));
    StateRecorder states = new StateRecorder();
    client.addConnectionStateListener(states);
    client.create("/mine", new byte[0], CreateMode.EPHEMERAL);
    long session = client.sessionId();

    cluster.killServer(leader);
    cluster.killServer(other);

    // the survivor must not go on answering the client (its pings too) as if its session were safe: without a
    // majority, nothing tells the client whether the session still stands, so it is SUSPENDED, then LOST
    states.awaitCount(ConnectionState.SUSPENDED, 1);
    states.awaitCount(ConnectionState.LOST, 1);
    assertEquals(ConnectionState.SUSPENDED, states.states().get(0), "states " + states.states());
    String why = cluster.status(survivor).getNotServing();
    assertTrue(why.contains("no leader"), "the admin status says why: " + why);

    cluster.restartServer(other);
    await().atMost(WAIT).until(() -> client.state().isConnected() && client.sessionId() != session);
    await().atMost(WAIT).ignoreExceptions().until(() -> client.exists("/mine").isEmpty());
  }

  @Test
  void aStoppedEnsembleStartedAgainKeepsItsDataAndItsClientsSessions() throws Exception {
    cluster = new TestingCluster(3);
    cluster.start(); // as Curator's tests do: the members run already, so nothing changes
    CorralClient client = connect(cluster.getConnectString(), Duration.ofSeconds(30));
    long session = client.sessionId();
    client.create("/kept", "kept".getBytes(UTF_8), CreateMode.PERSISTENT);
    client.create("/mine", new byte[0], CreateMode.EPHEMERAL);

    cluster.stop();
    for (int i = 0; i < cluster.size(); i++) {
      assertFalse(cluster.isRunning(i), "member " + i + " runs");
    }
    assertEquals(-1, cluster.getLeaderIndex());
    cluster.start();

    assertTrue(cluster.getLeaderIndex() >= 0);
    await().atMost(WAIT).ignoreExceptions().until(() -> client.exists("/mine").isPresent());
    assertEquals(session, client.sessionId());
    assertArrayEquals("kept".getBytes(UTF_8), client.getData("/kept").data());
  }

  /** A client given every member's address that happened to attach to member {@code index}. */
  private CorralClient clientAttachedTo(int index) throws InterruptedException {
    for (int attempt = 0; attempt < 40; attempt++) {
      CorralClient client = connect(cluster.getConnectString(), Duration.ofSeconds(10));
      long session = client.sessionId();
      if (cluster.server(index).orElseThrow().core().isAttachedHere(session)) {
        return client;
      }
      clients.remove(client);
      client.close();
    }
    throw new AssertionError("no client attached to member " + index + " in 40 tries of a shuffled list");
  }

  private List<String> digests() {
    List<String> digests = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.isRunning(i)) {
        digests.add(cluster.status(i).getTreeDigest() + "@" + cluster.status(i).getAppliedZxid());
      }
    }
    return digests;
  }
}
