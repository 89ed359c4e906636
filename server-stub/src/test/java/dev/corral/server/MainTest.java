package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--port"}))
        .getMessage().contains("needs a value"));
    assertEquals("unknown flag --bogus",
        assertThrows(IllegalArgumentException.class, () -> Main.configFrom(new String[] {"--bogus"})).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Main.configFrom(new String[] {"--config", dir.resolve("missing.conf").toString()}))
        .getMessage().endsWith("missing.conf does not exist"));
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "colour=blue\n");
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> Main.configFrom(new String[] {"--config", file.toString()})).getMessage().contains("colour"));
  }

  @Test
  void helpIsAskedWithEitherSpellingAndListsEveryFlag() {
    assertTrue(Main.helpAsked(new String[] {"--help"}));
    assertTrue(Main.helpAsked(new String[] {"--port", "9000", "-h"}));
    assertFalse(Main.helpAsked(new String[] {"--port", "9000"}));
    String usage = Main.usage();
    for (String key : Main.KEYS) {
      assertTrue(usage.contains("--" + key + " "), "--" + key + " is missing from:\n" + usage);
    }
  }

  @Test
  void defaultsInTheHelpAreWrittenAsTheSettingsReadThem() {
    for (Duration d : List.of(Duration.ofSeconds(2), Duration.ofMillis(200), Duration.ofMillis(1500))) {
      assertEquals(d, Main.durationOf("tick", Main.setting(d)));
    }
    assertEquals("2s", Main.setting(Duration.ofSeconds(2)));
    assertEquals("200ms", Main.setting(Duration.ofMillis(200)));
  }

  @Test
  void aStartFailureIsOneLineOfItsCauses() {
    IOException bind = new IOException("Failed to bind to address /127.0.0.1:7181",
        new IOException("bind(..) failed with error(-98): Address already in use"));
    BindException taken = new BindException(bind.getMessage());
    taken.initCause(bind);
    assertEquals("could not listen on 127.0.0.1:7181: Failed to bind to address /127.0.0.1:7181: "
        + "bind(..) failed with error(-98): Address already in use",
        Main.causes(new UncheckedIOException("could not listen on 127.0.0.1:7181", taken)));
    assertEquals("could not start the log in /srv/x: /srv/x: no such file or directory",
        Main.causes(new UncheckedIOException("could not start the log in /srv/x", new NoSuchFileException("/srv/x"))));
  }

  /** As an operator sees it: the server's own process, its port taken. */
  @Test
  void aServerWhosePortIsTakenSaysSoAndExits() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Process server = ServerProcess.command(List.of(), taken.getLocalPort(), dir.resolve("data")).start();
      try {
        assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server went on running");
        String output = new String(server.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, server.exitValue(), output);
        assertTrue(output.contains("corral-server: could not listen on 127.0.0.1:" + taken.getLocalPort() + ": "),
            output);
        assertTrue(output.contains("Address already in use"), output);
        assertFalse(output.contains("Exception in thread"), output);
      } finally {
        server.destroyForcibly();
      }
    }
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

  private ServerConfig ensembleConfig(String lines) throws Exception {
    Path file = dir.resolve("corral-2.conf");
    Files.writeString(file, lines);
    return Main.configFrom(new String[] {"--config", file.toString()});
  }

  @Test
  void anEnsembleMemberTakesItsPortsFromItsOwnEntry() throws Exception {
    ServerConfig config = ensembleConfig(String.join("\n",
        "id=2",
        "server.1=127.0.0.1:7181:7281",
        "server.2=127.0.0.1:7182:7282",
        "server.3=127.0.0.1:7183:7283",
        "data-dir=/srv/corral/2",
        "election-timeout-min=400ms",
        "election-timeout-max=800ms"));
    assertEquals("2", config.memberId());
    assertEquals(7182, config.port());
    assertEquals(7282, config.raftPort());
    assertEquals(3, config.members().size());
    assertTrue(config.isEnsemble());
    assertEquals("127.0.0.1:7181,127.0.0.1:7182,127.0.0.1:7183", config.ensembleConnectString());
    assertEquals(Duration.ofMillis(400), config.electionTimeoutMin());
    assertEquals(Duration.ofMillis(800), config.electionTimeoutMax());
  }

  @Test
  void aBrokenEnsembleConfigFailsWithAMessageNamingTheProblem() {
    assertMessage("not one of the servers", "id=4", "server.1=127.0.0.1:7181:7281", "server.2=127.0.0.1:7182:7282");
    assertMessage("id=", "server.1=127.0.0.1:7181:7281", "server.2=127.0.0.1:7182:7282");
    assertMessage("host:clientPort:peerPort", "id=1", "server.1=127.0.0.1:7181");
    assertMessage("not a number", "id=1", "server.1=127.0.0.1:x:7281");
    assertMessage("reuses a port", "id=1", "server.1=127.0.0.1:7181:7281", "server.2=127.0.0.1:7181:7282");
    assertMessage("both clients and peers", "id=1", "server.1=127.0.0.1:7181:7181");
    assertMessage("both", "id=1", "server.1=127.0.0.1:7181:7281", "election-timeout-min=1s");
    assertMessage("max >= min", "id=1", "server.1=127.0.0.1:7181:7281", "election-timeout-min=2s",
        "election-timeout-max=1s");
  }

  private void assertMessage(String expected, String... lines) {
    Exception e = assertThrows(IllegalArgumentException.class, () -> ensembleConfig(String.join("\n", lines)));
    assertTrue(e.getMessage().contains(expected), "'" + e.getMessage() + "' should mention '" + expected + "'");
  }
}
