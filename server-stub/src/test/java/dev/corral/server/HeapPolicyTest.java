package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    try (ServerProcess server = ServerProcess.start(List.of("-XX:MaxHeapFreeRatio=50"), LoopbackPorts.free(),
        dir.resolve("data"))) {
      List<String> flags = nonDefaultFlags(server.pid());

      assertTrue(flags.contains("-XX:MaxHeapFreeRatio=50"), flags::toString);
      assertTrue(flags.contains("-XX:MinHeapFreeRatio=10"), flags::toString);
      assertTrue(flags.contains("-XX:G1PeriodicGCInterval=60000"), flags::toString);
    }
  }

  /** The flags a running JVM has away from their defaults, as {@code jcmd PID VM.flags} prints them. */
  private static List<String> nonDefaultFlags(long pid) throws Exception {
    Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
        Long.toString(pid), "VM.flags").redirectErrorStream(true).start();
    String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS) && jcmd.exitValue() == 0, out);
    return List.of(out.trim().split("\\s+"));
  }
}
