package dev.corral.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.server.LoopbackPorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class TestingServerTest {
  @Test
  void aServerOnAFreePortListensBelowOutgoingConnectionsPortsAndKeepsThePortAcrossARestart() throws IOException {
    try (TestingServer server = new TestingServer()) {
      int port = server.getPort();
      assertTrue(port >= LoopbackPorts.LOWEST && port < LoopbackPorts.ephemeralStart(),
          port + " lies outside [" + LoopbackPorts.LOWEST + ", " + LoopbackPorts.ephemeralStart() + ")");
      assertEquals("127.0.0.1:" + port, server.getConnectString());
      server.stop();
      assertFalse(server.isRunning());
      server.restart();
      assertTrue(server.isRunning());
      assertEquals(port, server.getPort());
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
      }
    }
  }

  @Test
  void aServerPreallocatesLittleDisk() throws IOException {
    try (TestingServer server = new TestingServer();
        Stream<Path> files = Files.walk(server.getTempDirectory())) {
      long bytes = files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();

      assertTrue(bytes <= 4 * TestingServer.LOG_SEGMENT_BYTES, bytes + " bytes in " + server.getTempDirectory());
    }
  }

  @Test
  void aServerOnAPortAnotherListenerHoldsFailsWithABindExceptionNamingThePort() throws IOException {
    int port = LoopbackPorts.free();
    try (ServerSocket holder = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      UncheckedIOException failure = assertThrows(UncheckedIOException.class,
          () -> new TestingServer(port, TestingServer.DEFAULT_TICK));
      assertInstanceOf(BindException.class, failure.getCause());
      assertTrue(failure.getMessage().contains("127.0.0.1:" + port), failure.getMessage());
    }
  }

  @Test
  void aServerMadeNotStartedHasItsPortAtOnceAndListensThereOnceStarted() throws IOException {
    try (TestingServer server = new TestingServer(false)) {
      int port = server.getPort();
      assertFalse(server.isRunning());
      assertTrue(port >= LoopbackPorts.LOWEST && port < LoopbackPorts.ephemeralStart(), "port " + port);
      assertThrows(ConnectException.class, () -> connect(port));

      server.start();

      assertTrue(server.isRunning());
      assertEquals(port, server.getPort());
      assertEquals("127.0.0.1:" + port, server.getConnectString());
      connect(port);
    }
  }

  @Test
  void aServerOnAGivenPortListensThereAndAnotherTakesThePortAfterItIsClosed() throws IOException {
    int port = LoopbackPorts.free();
    try (TestingServer first = new TestingServer(port)) {
      assertEquals(port, first.getPort());
      connect(port);
    }
    try (TestingServer second = new TestingServer(port, true)) {
      assertTrue(second.isRunning());
      connect(port);
    }
  }

  @Test
  void aPortOutsideTheRangeOfPortsIsRefusedNamingIt() {
    IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new TestingServer(70_000));
    assertTrue(refused.getMessage().contains("70000"), refused.getMessage());
  }

  private static void connect(int port) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
    }
  }
}
