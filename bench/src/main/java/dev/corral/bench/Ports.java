package dev.corral.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Waiting for a server to listen, log tails (its ports come from {@code LoopbackPorts}). */
public final class Ports {
  private Ports() {}

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
