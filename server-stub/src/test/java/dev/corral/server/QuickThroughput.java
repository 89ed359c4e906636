package dev.corral.server;

import static dev.corral.server.Ops.create;
import static dev.corral.server.Ops.getData;
import static dev.corral.server.Ops.setData;

import dev.corral.proto.v1.Request;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * A quick throughput check from one session over loopback gRPC, against a real
 * single-node server with fsync on. Not a test: run it by hand.
 *
 * <pre>
 * mvn -q -pl server-stub -am test-compile exec:java -Dexec.mainClass=dev.corral.server.QuickThroughput \
 *     -Dexec.classpathScope=test
 * </pre>
 */
public final class QuickThroughput {
  private static final int N = Integer.getInteger("quick.ops", 5_000);
  private static final int WINDOW = 64;
  private static final String VALUE = "x".repeat(1024);

  private QuickThroughput() {}

  /** With a port as the argument, runs against a server already listening there on 127.0.0.1. */
  public static void main(String[] args) throws Exception {
    if (args.length > 0) {
      runAll(Integer.parseInt(args[0]), "/q" + System.nanoTime());
      return;
    }
    Path dir = Files.createTempDirectory("corral-quick");
    ServerConfig config = ServerConfig.builder().port(0).dataDir(dir).build();
    try (CorralServer server = CorralServer.start(config)) {
      runAll(server.port(), "/q");
    }
  }

  private static void runAll(int port, String root) {
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try (RawSession s = RawSession.open(channel, 30_000)) {
      s.ok(create(root, ""));
      s.ok(create(root + "/warm", ""));
      run(s, "warm-up create, one at a time", 1, i -> create(root + "/warm/" + i, VALUE));
      run(s, "create, one at a time", 1, i -> create(root + "/a" + i, VALUE));
      run(s, "setData, one at a time", 1, i -> setData(root + "/a" + i, VALUE, -1));
      run(s, "getData, one at a time", 1, i -> getData(root + "/a" + i, false));
      run(s, "create, " + WINDOW + " in flight", WINDOW, i -> create(root + "/b" + i, VALUE));
      run(s, "setData, " + WINDOW + " in flight", WINDOW, i -> setData(root + "/b" + i, VALUE, -1));
      run(s, "getData, " + WINDOW + " in flight", WINDOW, i -> getData(root + "/b" + i, false));
    } finally {
      channel.shutdownNow();
    }
  }

  private static void run(RawSession s, String name, int window, IntFunction<Request.Builder> op) {
    long[] sentAt = new long[N];
    long[] latencies = new long[N];
    long start = System.nanoTime();
    int sent = 0;
    int answered = 0;
    while (answered < N) {
      while (sent < N && sent - answered < window) {
        sentAt[sent] = System.nanoTime();
        s.sendRequest(op.apply(sent++));
      }
      var response = s.next().getResponse();
      latencies[answered] = System.nanoTime() - sentAt[answered];
      if (response.hasError()) {
        throw new IllegalStateException(name + ": " + response.getError());
      }
      answered++;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(latencies);
    System.out.printf("%-36s %8.0f ops/s  p50 %.3f ms  (%d ops in %.2f s)%n", name, N / seconds,
        latencies[N / 2] / 1e6, N, seconds);
  }
}
