package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeapPolicyTest {
  private static final HotSpotDiagnosticMXBean VM = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

  @Test
  void setsTheFlagsOnceAndThenLeavesThemAsSet() {
    // This test JVM runs G1 with none of the three flags on its command line (see the surefire argLine).
    List<String> set = HeapPolicy.apply();

    assertEquals(List.of("MinHeapFreeRatio=10", "MaxHeapFreeRatio=20", "G1PeriodicGCInterval=60000"), set);
    assertEquals("10", VM.getVMOption(HeapPolicy.MIN_FREE).getValue());
    assertEquals("20", VM.getVMOption(HeapPolicy.MAX_FREE).getValue());
    assertEquals("60000", VM.getVMOption(HeapPolicy.PERIODIC_GC_MS).getValue());
    assertEquals(List.of(), HeapPolicy.apply(), "a flag no longer at its default is not set again");
  }

  @Test
  void theServerProcessKeepsAFlagGivenOnTheJavaCommandLine(@TempDir Path dir) throws Exception {
    try (ServerProcess server = ServerProcess.start(List.of("-XX:MaxHeapFreeRatio=50"), ServerProcess.freePort(),
        dir.resolve("data"))) {
      String log = server.log();

      assertTrue(log.contains("Heap policy: MinHeapFreeRatio=10, G1PeriodicGCInterval=60000"), log);
      assertFalse(log.contains("MaxHeapFreeRatio="), log);
    }
  }
}
