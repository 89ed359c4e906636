package dev.corral.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Free loopback ports and temporary directories for testing servers. */
final class TestingResources {
  private TestingResources() {}

  static Path newTempDir() {
    try {
      return Files.createTempDirectory("corral-test-");
    } catch (IOException e) {
      throw new UncheckedIOException("could not create a temporary data directory", e);
    }
  }

  /** A loopback port free right now (another process could still take it before it is bound). */
  static int freePort() {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress("127.0.0.1", 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("could not find a free port", e);
    }
  }

  static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.delete(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
          Files.delete(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + dir, e);
    }
  }
}
