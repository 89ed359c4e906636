package dev.corral.server;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** A real server on a free loopback port, and the channels opened to it; closes everything. */
final class LiveServer implements AutoCloseable {
  static final Duration TEST_TICK = Duration.ofMillis(100);

  private final CorralServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();

  private LiveServer(CorralServer server) {
    this.server = server;
  }

  static LiveServer start(Path dataDir) {
    return start(dataDir, b -> b);
  }

  static LiveServer start(Path dataDir, UnaryOperator<ServerConfig.Builder> settings) {
    ServerConfig config = settings.apply(ServerConfig.builder()
        .port(0)
        .dataDir(dataDir)
        .tick(TEST_TICK)).build();
    NettyServerBuilder transport = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    return new LiveServer(CorralServer.start(config, transport));
  }

  CorralServer server() {
    return server;
  }

  /** A channel with gRPC's default receive limit, 4 MiB. */
  ManagedChannel channel() {
    return channel(NettyChannelBuilder.forAddress("127.0.0.1", server.port()));
  }

  /** A channel that receives messages of up to {@code maxInboundBytes}. */
  ManagedChannel channel(int maxInboundBytes) {
    return channel(NettyChannelBuilder.forAddress("127.0.0.1", server.port()).maxInboundMessageSize(maxInboundBytes));
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    ManagedChannel channel = builder.usePlaintext().build();
    channels.add(channel);
    return channel;
  }

  RawSession open() {
    return RawSession.open(channel(), 2000);
  }

  @Override
  public void close() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }
}
