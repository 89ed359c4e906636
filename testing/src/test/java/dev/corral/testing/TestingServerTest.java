package dev.corral.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corral.server.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
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
}
