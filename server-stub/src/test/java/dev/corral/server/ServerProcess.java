package dev.corral.server;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Corral server in its own JVM, started from this test's classpath through
 * {@link Main}, so that it can be killed with SIGKILL. Always {@link #close()}
 * it (try-with-resources): that kills the process whatever the test did.
 */
final class ServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;

  private ServerProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** Starts a server on {@code port} with {@code dataDir} and waits until it serves. */
  static ServerProcess start(int port, Path dataDir, String... extraFlags) throws Exception {
    return start(List.of(), port, dataDir, extraFlags);
  }

  /** As {@link #start(int, Path, String...)}, with extra options for the JVM. */
  static ServerProcess start(List<String> jvmOptions, int port, Path dataDir, String... extraFlags) throws Exception {
    Path log = dataDir.resolveSibling(dataDir.getFileName() + "-" + port + "-" + System.nanoTime() + ".log");
    Process process = command(jvmOptions, port, dataDir, extraFlags).redirectOutput(log.toFile()).start();
    ServerProcess server = new ServerProcess(process, port, log);
    try {
      server.awaitServing();
    } catch (Exception | AssertionError e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** The command line of a server on {@code port} with {@code dataDir}, its output and errors together. */
  static ProcessBuilder command(List<String> jvmOptions, int port, Path dataDir, String... extraFlags) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
        "--port", String.valueOf(port), "--data-dir", dataDir.toString()));
    command.addAll(List.of(extraFlags));
    return new ProcessBuilder(command).redirectErrorStream(true);
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  ManagedChannel channel() {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  private void awaitServing() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    ManagedChannel channel = channel();
    try {
      while (true) {
        if (!process.isAlive()) {
          throw new AssertionError("server exited with " + process.exitValue() + "; log: " + java.nio.file.Files.readString(log));
        }
        try {
          HealthCheckResponse health = HealthGrpc.newBlockingStub(channel)
              .withDeadlineAfter(1, TimeUnit.SECONDS)
              .check(HealthCheckRequest.getDefaultInstance());
          if (health.getStatus() == HealthCheckResponse.ServingStatus.SERVING) {
            return;
          }
        } catch (RuntimeException notYet) {
          // not listening yet
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("server did not start within 60 s; log: " + java.nio.file.Files.readString(log));
        }
        Thread.sleep(100);
      }
    } finally {
      channel.shutdownNow();
    }
  }

  /** SIGTERM: a clean shutdown (the server's hook takes a snapshot). */
  void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new AssertionError("server did not stop within 60 s of SIGTERM");
    }
  }

  /** What the server printed so far. */
  String log() throws IOException {
    return java.nio.file.Files.readString(log);
  }

  /** SIGKILL: no shutdown hook, no snapshot, no flush. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
