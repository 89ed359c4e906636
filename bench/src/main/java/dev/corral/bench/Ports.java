package dev.corral.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Free loopback ports, waiting for a server to listen, log tails. */
public final class Ports {
  private Ports() {}

  /** A port that was free a moment ago on 127.0.0.1. */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code count} distinct ports that were free a moment ago on 127.0.0.1 (each held until all are found). */
  public static List<Integer> free(int count) {
    List<ServerSocket> sockets = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket.setReuseAddress(true);
        sockets.add(socket);
      }
      return sockets.stream().map(ServerSocket::getLocalPort).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket socket : sockets) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // only probed
        }
      }
    }
  }

  /** Waits until 127.0.0.1:port accepts connections, the process dies, or {@code timeoutMs} passes. */
  public static void awaitListening(Process process, int port, long timeoutMs, Path log, String what) throws Exception {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(what + " exited with " + process.exitValue() + " before listening; log tail:\n"
            + tail(log, 30));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException(what + " did not listen on port " + port + " within " + timeoutMs + " ms; log tail:\n"
        + tail(log, 30));
  }

  /** The last {@code lines} lines of a file ("" if unreadable). */
  public static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
