package dev.corral.server;

import static dev.corral.server.Ops.bytes;
import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.proto.v1.CreateMode;
import dev.corral.proto.v1.Response;
import dev.corral.proto.v1.Stat;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acknowledged writes survive a server killed with SIGKILL: no clean
 * shutdown, no snapshot; the restart replays the fsynced Raft log.
 */
class CrashDurabilityTest {
  @TempDir Path dir;

  record Acked(long zxid, String data, int version) {}

  @Test
  void everyAcknowledgedWriteSurvivesKillNineWithItsZxid() throws Exception {
    Path dataDir = dir.resolve("data");
    int port = LoopbackPorts.free();
    Map<String, Acked> acked = new LinkedHashMap<>();

    // a snapshot every 100 entries: the restart loads the latest one and replays the log after it
    try (ServerProcess server = ServerProcess.start(port, dataDir, "--tick", "2s", "--snapshot-every", "100")) {
      ManagedChannel channel = server.channel();
      try (RawSession s = RawSession.open(channel, 30_000)) {
        s.ok(create("/d", ""));
        for (int i = 0; i < 300; i++) {
          String path = "/d/n" + i;
          Response created = s.ok(create(path, "v0-" + i));
          acked.put(path, new Acked(created.getZxid(), "v0-" + i, 0));
          if (i % 3 == 0) {
            Response set = s.ok(setData(path, "v1-" + i, 0));
            acked.put(path, new Acked(created.getZxid(), "v1-" + i, set.getSetData().getStat().getVersion()));
          }
        }
        // writes still in flight when the process dies: they may or may not survive
        for (int i = 0; i < 200; i++) {
          s.sendRequest(create("/d/inflight" + i, "x", CreateMode.PERSISTENT));
        }
        server.kill();
      } finally {
        channel.shutdownNow();
      }
    }

    try (Stream<Path> files = Files.walk(dataDir)) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().startsWith("snapshot.")),
          "periodic snapshots were taken before the crash");
    }
    assertTrue(Files.isDirectory(dataDir.resolve("log")), "a single server writes its own log, not Raft's");
    try (ServerProcess restarted = ServerProcess.start(port, dataDir, "--tick", "2s", "--snapshot-every", "100")) {
      ManagedChannel channel = restarted.channel();
      try (RawSession s = RawSession.open(channel, 30_000)) {
        for (Map.Entry<String, Acked> entry : acked.entrySet()) {
          Response read = s.ok(getData(entry.getKey(), false));
          Stat stat = read.getGetData().getStat();
          Acked expected = entry.getValue();
          assertEquals(bytes(expected.data()), read.getGetData().getData(), entry.getKey());
          assertEquals(expected.zxid(), stat.getCzxid(), "same zxid after replay for " + entry.getKey());
          assertEquals(expected.version(), stat.getVersion(), entry.getKey());
        }
        long newZxid = s.ok(create("/after-restart", "")).getZxid();
        long lastAcked = acked.values().stream().mapToLong(Acked::zxid).max().orElseThrow();
        assertTrue(newZxid > lastAcked, "zxids keep increasing across the crash");
      } finally {
        channel.shutdownNow();
      }
    }
  }

  @Test
  void cleanShutdownTakesASnapshotAndRestartKeepsTheTree() throws Exception {
    Path dataDir = dir.resolve("clean");
    int port = LoopbackPorts.free();
    long zxid;
    try (ServerProcess server = ServerProcess.start(port, dataDir)) {
      ManagedChannel channel = server.channel();
      try (RawSession s = RawSession.open(channel, 30_000)) {
        zxid = s.ok(create("/kept", "yes")).getZxid();
      } finally {
        channel.shutdownNow();
      }
      server.stop();
      assertTrue(server.log().contains("Corral stopped"), "SIGTERM shuts down cleanly: " + server.log());
    }
    try (Stream<Path> files = Files.walk(dataDir)) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().startsWith("snapshot.")),
          "a snapshot was written on clean shutdown");
    }
    try (ServerProcess restarted = ServerProcess.start(port, dataDir)) {
      ManagedChannel channel = restarted.channel();
      try (RawSession s = RawSession.open(channel, 30_000)) {
        Response read = s.ok(getData("/kept", false));
        assertEquals(bytes("yes"), read.getGetData().getData());
        assertEquals(zxid, read.getGetData().getStat().getCzxid());
      } finally {
        channel.shutdownNow();
      }
    }
  }
}
