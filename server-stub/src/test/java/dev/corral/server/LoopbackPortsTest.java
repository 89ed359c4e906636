package dev.corral.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Scanner;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void portsOfOneCallAreDistinctAndEachCanBeBound() throws IOException {
    List<Integer> ports = LoopbackPorts.free(40);
    assertEquals(40, new HashSet<>(ports).size(), "distinct: " + ports);
    List<ServerSocket> bound = new ArrayList<>();
    try {
      for (int port : ports) {
        bound.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
      }
    } finally {
      for (ServerSocket socket : bound) {
        socket.close();
      }
    }
  }

  @Test
  void portsLieBelowTheKernelsRangeForOutgoingConnections() throws IOException {
    int outgoingStart = LoopbackPorts.DEFAULT_EPHEMERAL_START;
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (Files.isReadable(range)) {
      try (Scanner scanner = new Scanner(range)) {
        outgoingStart = scanner.nextInt();
      }
    }
    assumeTrue(outgoingStart > LoopbackPorts.LOWEST + 1_000, "this machine's outgoing ports start at " + outgoingStart
        + ": no room below them");
    assertEquals(outgoingStart, LoopbackPorts.ephemeralStart());
    for (int port : LoopbackPorts.free(40)) {
      assertTrue(port >= LoopbackPorts.LOWEST && port < outgoingStart,
          port + " lies outside [" + LoopbackPorts.LOWEST + ", " + outgoingStart + ")");
    }
  }

  @Test
  void aPortHeldByAnotherListenerIsNeverHandedOut() throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int port : LoopbackPorts.free(200)) {
        held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
      }
      HashSet<Integer> taken = new HashSet<>();
      held.forEach(socket -> taken.add(socket.getLocalPort()));
      for (int port : LoopbackPorts.free(200)) {
        assertFalse(taken.contains(port), port + " is held by a listener");
      }
    } finally {
      for (ServerSocket socket : held) {
        socket.close();
      }
    }
  }
}
