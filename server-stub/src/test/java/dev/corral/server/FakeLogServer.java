package dev.corral.server;

import dev.corral.server.rpc.CoordinationService;
import dev.corral.server.session.SessionTracker;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gRPC service over a {@link FakeLog}, in process: for protocol tests that
 * need to decide when a change or a sync happens. Session time comes from a
 * ticker the test advances.
 */
final class FakeLogServer implements AutoCloseable {
  final AtomicLong nanos = new AtomicLong();
  final ServerCore core = new ServerCore(Clock.systemUTC(), new SessionTracker(nanos::get));
  final FakeLog log = new FakeLog(core);
  final ServerConfig config;
  private final String name = InProcessServerBuilder.generateName();
  private final Server grpc;
  private final List<ManagedChannel> channels = new ArrayList<>();

  FakeLogServer(ServerConfig.Builder config) {
    this.config = config.dataDir(Path.of("unused")).build();
    core.useReplicator(log);
    try {
      grpc = InProcessServerBuilder.forName(name)
          .addService(new CoordinationService(core, this.config))
          .build()
          .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  FakeLogServer() {
    this(ServerConfig.builder());
  }

  ManagedChannel channel() {
    ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
    channels.add(channel);
    return channel;
  }

  RawSession open() {
    return RawSession.open(channel(), 4000);
  }

  @Override
  public void close() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    grpc.shutdownNow();
    grpc.awaitTermination(5, TimeUnit.SECONDS);
  }
}
