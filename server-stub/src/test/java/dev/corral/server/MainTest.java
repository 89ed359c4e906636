package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
  @TempDir Path dir;

  @Test
  void defaultsListenOnLoopback7181WithDataInDotData() throws Exception {
    ServerConfig config = Main.configFrom(new String[0]);
    assertEquals("127.0.0.1", config.host());
    assertEquals(7181, config.port());
    assertEquals(Path.of("data"), config.dataDir());
    assertEquals(Duration.ofSeconds(2), config.tick());
    assertEquals(1024 * 1024, config.maxDataBytes());
    assertEquals(100_000, config.snapshotEvery());
  }

  @Test
  void flagsSetPortDataDirAndTick() throws Exception {
    ServerConfig config = Main.configFrom(new String[] {"--port", "9000", "--data-dir", "/tmp/x", "--tick=500ms"});
    assertEquals(9000, config.port());
    assertEquals(Path.of("/tmp/x"), config.dataDir());
    assertEquals(Duration.ofMillis(500), config.tick());
  }

  @Test
  void configFileIsReadAndFlagsOverrideIt() throws Exception {
    Path file = dir.resolve("corral.conf");
    Files.writeString(file, "port=9100\ntick=3s\ndata-dir=/srv/corral\n");
    ServerConfig config = Main.configFrom(new String[] {"--config", file.toString(), "--port", "9200"});
    assertEquals(9200, config.port());
    assertEquals(Duration.ofSeconds(3), config.tick());
    assertEquals(Path.of("/srv/corral"), config.dataDir());
  }

  @Test
  void unknownRepeatedOrMalformedSettingsFailWithAClearMessage() throws Exception {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--prot", "1"}))
        .getMessage().contains("--prot"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Main.configFrom(new String[] {"--port", "1", "--port", "2"})).getMessage().contains("twice"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--port", "x"}))
        .getMessage().contains("port"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--tick", "soon"}))
        .getMessage().contains("tick"));
    assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--port"}));
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "colour=blue\n");
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Main.configFrom(new String[] {"--config", file.toString()})).getMessage().contains("colour"));
  }

  @Test
  void sessionTimeoutsAreNegotiatedIntoTwoToTwentyTicks() {
    ServerConfig config = ServerConfig.builder().tick(Duration.ofSeconds(2)).build();
    assertEquals(4000, config.negotiateTimeoutMs(0));
    assertEquals(4000, config.negotiateTimeoutMs(1000));
    assertEquals(10_000, config.negotiateTimeoutMs(10_000));
    assertEquals(40_000, config.negotiateTimeoutMs(3_600_000));
  }

  @Test
  void builderRefusesASettingGivenTwiceOrOutOfRange() {
    assertThrows(IllegalStateException.class, () -> ServerConfig.builder().port(1).port(2));
    assertThrows(IllegalArgumentException.class, () -> ServerConfig.builder().port(70_000).build());
    assertThrows(IllegalArgumentException.class, () -> ServerConfig.builder().tick(Duration.ZERO).build());
    assertThrows(IllegalArgumentException.class,
        () -> ServerConfig.builder().maxDataBytes(1000).maxRequestBytes(1000).build());
  }
}
