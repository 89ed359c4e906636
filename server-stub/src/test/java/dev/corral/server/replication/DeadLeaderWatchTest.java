package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeadLeaderWatchTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void followersRankInMemberOrderLeavingTheLeaderOut() {
    List<String> ids = List.of("1", "2", "3");

    assertEquals(0, DeadLeaderWatch.rank(ids, "1", "2"));
    assertEquals(1, DeadLeaderWatch.rank(ids, "1", "3"));
    assertEquals(0, DeadLeaderWatch.rank(ids, "2", "1"));
    assertEquals(1, DeadLeaderWatch.rank(ids, "2", "3"));
    assertThrows(IllegalArgumentException.class, () -> DeadLeaderWatch.rank(ids, "1", "9"));
  }

  @Test
  void theFirstFollowerLooksOnceTheLeaderMissedAHeartbeatAndLaterOnesAStaggerAfter() {
    DeadLeaderWatch first = new DeadLeaderWatch(Duration.ofMillis(200)); // heartbeats every 100 ms
    DeadLeaderWatch second = new DeadLeaderWatch(Duration.ofMillis(200));

    assertFalse(first.due(100, 0, 0));
    assertTrue(first.due(120, 0, 0));
    assertFalse(second.due(120, 1, 0));
    assertFalse(second.due(169, 1, 0));
    assertTrue(second.due(170, 1, 0));
  }

  @Test
  void afterALookTheNextWaitsAStagger() {
    DeadLeaderWatch watch = new DeadLeaderWatch(Duration.ofMillis(200));

    assertTrue(watch.due(150, 0, 1_000 * MS));
    assertFalse(watch.due(170, 0, 1_020 * MS));
    assertTrue(watch.due(200, 0, 1_050 * MS));
  }

  @Test
  void aClosedPortRefusesAndAListeningOneDoesNot() throws Exception {
    InetSocketAddress address;
    try (ServerSocket listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      address = new InetSocketAddress("127.0.0.1", listening.getLocalPort());
      assertFalse(DeadLeaderWatch.refusesConnections(address));
    }
    assertTrue(DeadLeaderWatch.refusesConnections(address));
  }
}
