package dev.corral.server.replication;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.ratis.util.ExitUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member whose port another process holds: in a test's JVM its start fails, where Ratis would otherwise end
 * the JVM (and with it every other test of the fork) with System.exit.
 */
class TakenPortTest {
  @TempDir
  Path dataDirs;

  @AfterEach
  void forgetTheRecordedExit() {
    ExitUtils.clear();
  }

  @Test
  void aMemberWhosePortIsTakenFailsToStartAndTheJvmGoesOn() throws Exception {
    List<RaftMember> members = LocalMembers.onFreePorts("1", "2", "3"); // turns keepTheJvmOnFatalErrors on
    try (ServerSocket taken = new ServerSocket(members.get(0).port(), 50, InetAddress.getLoopbackAddress());
        RaftReplicator member = RaftReplicator.create(ReplicationConfig.builder()
            .dataDir(Files.createDirectory(dataDirs.resolve("1")))
            .members("1", members)
            .build(), new RecordingState())) {
      RuntimeException failure = assertThrows(RuntimeException.class, member::start);
      assertTrue(ExitUtils.isTerminated(), "Ratis reported its fatal error: " + failure);
    }
  }
}
