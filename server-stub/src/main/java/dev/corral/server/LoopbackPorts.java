package dev.corral.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for servers that tests and test harnesses start on this
 * machine and may start again on the same port (an ensemble's members, a
 * restarted server).
 *
 * <p>A port the kernel hands out for {@code bind(0)} comes from its range for
 * outgoing connections (Linux: 32768-60999). Such a port, once the probe that
 * found it is closed, or while its server is down between a stop and a
 * restart, may be given to any outgoing connection on the machine (members
 * dialling each other; a client redialling the stopped server may even get
 * the very port it dials and connect to itself), and the server's bind then
 * fails with "Address already in use"; Ratis answers that with
 * {@code System.exit}, ending the test's JVM (unless
 * {@code RaftReplicator.keepTheJvmOnFatalErrors()} was called). So the ports here are drawn at
 * random from below that range, where no outgoing connection gets one, and
 * each is probed by binding it; the probes of one call are held until all are
 * found, so the ports are distinct.
 */
public final class LoopbackPorts {
  /** The lowest port handed out: above those of common local services. */
  public static final int LOWEST = 20_000;
  /** Where outgoing connections' ports start if the kernel does not say (Linux's default). */
  static final int DEFAULT_EPHEMERAL_START = 32_768;
  private static final int ATTEMPTS_PER_PORT = 200;

  private LoopbackPorts() {}

  /** One port that was free on 127.0.0.1 a moment ago. */
  public static int free() {
    return free(1).get(0);
  }

  /**
   * {@code count} distinct ports that were free on 127.0.0.1 a moment ago,
   * below the range of outgoing connections' ports.
   *
   * @throws UncheckedIOException when no free port is found there after many tries
   */
  public static List<Integer> free(int count) {
    int ceiling = ephemeralStart();
    List<ServerSocket> probes = new ArrayList<>(count);
    try {
      for (int i = 0; i < count; i++) {
        probes.add(probe(ceiling));
      }
      return probes.stream().map(ServerSocket::getLocalPort).toList();
    } finally {
      for (ServerSocket probe : probes) {
        try {
          probe.close();
        } catch (IOException ignored) {
          // only probed
        }
      }
    }
  }

  private static ServerSocket probe(int ceiling) {
    for (int attempt = 0; attempt < ATTEMPTS_PER_PORT; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, ceiling);
      try {
        return new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
      } catch (BindException taken) {
        // another listener (or one of this call's probes) has it: try another
      } catch (IOException e) {
        throw new UncheckedIOException("could not probe loopback port " + port, e);
      }
    }
    throw new UncheckedIOException(new BindException("no free loopback port between " + LOWEST + " and "
        + ceiling + " after " + ATTEMPTS_PER_PORT + " tries"));
  }

  /**
   * The first port of the kernel's range for outgoing connections, from
   * Linux's {@code ip_local_port_range}; {@value #DEFAULT_EPHEMERAL_START} where
   * that cannot be read (other systems' ranges start higher still).
   */
  public static int ephemeralStart() {
    try {
      // readAllLines: Files.readString read only the first byte of this procfs file (JDK 17)
      List<String> lines = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
      int start = Integer.parseInt(lines.get(0).trim().split("\\s+")[0]);
      return start > LOWEST + 1_000 ? start : DEFAULT_EPHEMERAL_START;
    } catch (IOException | RuntimeException unknown) {
      return DEFAULT_EPHEMERAL_START;
    }
  }
}
