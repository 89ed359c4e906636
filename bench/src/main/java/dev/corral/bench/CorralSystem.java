package dev.corral.bench;

import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.EventType;
import dev.corral.client.NodeExistsException;
import dev.corral.client.grpc.CorralClient;
import dev.corral.proto.v1.AdminGrpc;
import dev.corral.proto.v1.MemberStatus;
import dev.corral.proto.v1.StatusRequest;
import dev.corral.recipes.lock.InterProcessMutex;
import dev.corral.server.LoopbackPorts;
import dev.corral.server.Main;
import dev.corral.server.ServerConfig;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/**
 * Corral, started as {@code java -jar corral-server-*-all.jar} (the shaded jar
 * bin/corral-server runs, with its defaults but {@code --tick 1s} so that a 2 s
 * session timeout can be granted), or from this JVM's classpath if no jar is
 * given (the fast test). Extra server JVM options come from {@code CORRAL_JAVA_OPTS},
 * as for bin/corral-server. W6's ensemble members run the same way, each with a
 * config file ({@code id}, {@code server.<id>} lines, {@code tick=1s} and, if
 * given, the election timeouts under comparison).
 */
public final class CorralSystem implements BenchSystem {
  private final Path jar;
  private final ElectionTimeout electionTimeout;

  /**
   * A follower's election timeout range for W6's members, as given by
   * {@code --corral-election-timeout 500ms-1000ms}.
   */
  public record ElectionTimeout(Duration min, Duration max) {
    public ElectionTimeout {
      if (min.toMillis() < 10 || max.compareTo(min) < 0) {
        throw new IllegalArgumentException("an election timeout range needs 10ms <= min <= max, not "
            + min.toMillis() + "ms-" + max.toMillis() + "ms");
      }
    }

    /** "500ms-1000ms", "1s-2s" or "500-1000" (milliseconds). */
    public static ElectionTimeout parse(String text) {
      String[] parts = text.trim().split("-");
      if (parts.length != 2) {
        throw new IllegalArgumentException("--corral-election-timeout takes MIN-MAX, like 500ms-1000ms, not '"
            + text + "'");
      }
      return new ElectionTimeout(Main.durationOf("--corral-election-timeout", parts[0].trim()),
          Main.durationOf("--corral-election-timeout", parts[1].trim()));
    }

    @Override
    public String toString() {
      return min.toMillis() + "ms-" + max.toMillis() + "ms";
    }
  }

  /**
   * @param jar the server's shaded jar, or null to run {@code dev.corral.server.Main} from this classpath
   * @param electionTimeout W6's members' election timeouts, or null for the server's default
   */
  public CorralSystem(Path jar, ElectionTimeout electionTimeout) {
    this.jar = jar;
    this.electionTimeout = electionTimeout;
  }

  @Override
  public String name() {
    return "corral";
  }

  @Override
  public String describe() {
    return (jar != null ? "java -jar " + jar.getFileName() : "java -cp <bench classpath> dev.corral.server.Main")
        + " --port P --data-dir D --tick 1s (fsync before ack, its default; JVM defaults and the server's own"
        + " heap policy, as bin/corral-server)";
  }

  @Override
  public boolean jvm() {
    return true;
  }

  @Override
  public String describeEnsemble() {
    String timeouts = electionTimeout != null
        ? "election-timeout-min/max " + electionTimeout + " (--corral-election-timeout)"
        : "election timeouts: the server's default " + ServerConfig.DEFAULT_ELECTION_TIMEOUT_MIN.toMillis() + "ms-"
            + ServerConfig.DEFAULT_ELECTION_TIMEOUT_MAX.toMillis() + "ms";
    String java = jar != null ? "java -jar " + jar.getFileName() : "java -cp <bench classpath> dev.corral.server.Main";
    return "3 x " + java + " --config corral.conf (id, server.1-3, tick=1s, " + timeouts
        + "; JVM defaults as the single server)";
  }

  /** The java command up to the server's arguments: CORRAL_JAVA_OPTS, then the jar or the main class. */
  private List<String> java() {
    List<String> command = new ArrayList<>();
    command.add(Procs.javaBin());
    String opts = System.getenv("CORRAL_JAVA_OPTS"); // as bin/corral-server: e.g. a JFR recording for a profile
    if (opts != null && !opts.isBlank()) {
      command.addAll(List.of(opts.trim().split("\\s+")));
    }
    if (jar != null) {
      command.add("-jar");
      command.add(jar.toString());
    } else {
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add("dev.corral.server.Main");
    }
    return command;
  }

  @Override
  public ServerHandle start(Path dir) throws Exception {
    Files.createDirectories(dir);
    int port = LoopbackPorts.free();
    List<String> command = java();
    command.addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(port),
        "--data-dir", dir.resolve("data").toString(), "--tick", "1s"));
    Path log = dir.resolve("server.log");
    Process process = Procs.start(new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile()));
    Simple handle = new Simple(process, "127.0.0.1:" + port, log);
    try {
      Ports.awaitListening(process, port, 60_000, log, "corral server");
    } catch (Exception e) {
      handle.close();
      throw e;
    }
    return handle;
  }

  @Override
  public Ensemble startEnsemble(Path dir) throws Exception {
    int size = 3;
    List<Integer> ports = LoopbackPorts.free(2 * size); // client, peer
    StringBuilder servers = new StringBuilder();
    for (int i = 0; i < size; i++) {
      servers.append("server.").append(i + 1).append("=127.0.0.1:").append(ports.get(i)).append(':')
          .append(ports.get(size + i)).append('\n');
    }
    List<Ensemble.MemberSpec> specs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String id = Integer.toString(i + 1);
      Path memberDir = Files.createDirectories(dir.resolve("member-" + id));
      StringBuilder config = new StringBuilder("id=" + id + "\n").append(servers)
          .append("data-dir=").append(memberDir.resolve("data")).append("\ntick=1s\n");
      if (electionTimeout != null) {
        config.append("election-timeout-min=").append(electionTimeout.min().toMillis()).append("ms\n")
            .append("election-timeout-max=").append(electionTimeout.max().toMillis()).append("ms\n");
      }
      Path file = Files.writeString(memberDir.resolve("corral.conf"), config, StandardCharsets.UTF_8);
      List<String> command = java();
      command.addAll(List.of("--config", file.toString()));
      specs.add(new Ensemble.MemberSpec("member " + id, command, ports.get(i), memberDir.resolve("server.log")));
    }
    String connect = ports.subList(0, size).stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    return Ensemble.start(name(), specs, connect, new AdminProbe(ports.subList(0, size)),
        EnsembleWorkload.START_CAP_MS);
  }

  /** Each member's Admin Status over a channel of its own. */
  private static final class AdminProbe implements Ensemble.Probe {
    private final List<ManagedChannel> channels = new ArrayList<>();

    AdminProbe(List<Integer> ports) {
      for (int port : ports) {
        channels.add(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build());
      }
    }

    @Override
    public Optional<Ensemble.MemberView> view(int index) {
      ManagedChannel channel = channels.get(index);
      try {
        MemberStatus s = AdminGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.SECONDS)
            .status(StatusRequest.getDefaultInstance());
        Ensemble.Role role = switch (s.getRole()) {
          case LEADER -> Ensemble.Role.LEADER;
          case FOLLOWER -> Ensemble.Role.FOLLOWER;
          default -> Ensemble.Role.ELECTING;
        };
        return Optional.of(new Ensemble.MemberView(s.getMemberId(), role, s.getTerm(), s.getLeaderId(),
            s.getAppliedZxid()));
      } catch (StatusRuntimeException e) {
        // a restarted member listens again: do not wait out the channel's reconnect backoff
        channel.resetConnectBackoff();
        return Optional.empty();
      }
    }

    @Override
    public void close() {
      channels.forEach(ManagedChannel::shutdownNow);
    }
  }

  @Override
  public Client connect(String connectString, Duration sessionTimeout) throws Exception {
    CorralClient client = CorralClient.builder().connectString(connectString)
        .sessionTimeout(sessionTimeout).build();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("no Corral session within 30 s at " + connectString);
    }
    return new CorralBenchClient(client);
  }

  /** A server process with a fixed connect string. */
  record Simple(Process process, String connectString, Path log) implements ServerHandle {
    @Override
    public long pid() {
      return process.pid();
    }

    @Override
    public void close() {
      Procs.stop(process, 15_000);
    }
  }

  private static final class CorralBenchClient implements Client {
    private final CorralClient client;

    CorralBenchClient(CorralClient client) {
      this.client = client;
    }

    @Override
    public void ensurePath(String path) throws Exception {
      try {
        client.create(path, new byte[0], CreateOptions.builder(CreateMode.PERSISTENT).creatingParents().build());
      } catch (NodeExistsException exists) {
        // fine
      }
    }

    @Override
    public void create(String path, byte[] data) throws Exception {
      client.create(path, data, CreateMode.PERSISTENT);
    }

    @Override
    public byte[] get(String path) throws Exception {
      return client.getData(path).data();
    }

    @Override
    public void set(String path, byte[] data) throws Exception {
      client.setData(path, data);
    }

    @Override
    public void delete(String path) throws Exception {
      client.delete(path);
    }

    @Override
    public CompletableFuture<?> createAsync(String path, byte[] data) {
      return client.async().create(path, data, CreateOptions.of(CreateMode.PERSISTENT));
    }

    @Override
    public Mutex mutex(String path) {
      InterProcessMutex mutex = new InterProcessMutex(client, path);
      return new Mutex() {
        @Override
        public void acquire() throws Exception {
          mutex.acquire();
        }

        @Override
        public void release() throws Exception {
          mutex.release();
        }
      };
    }

    @Override
    public DataWatch watchData(String path, LongConsumer onChange) {
      return new DataWatch() {
        @Override
        public void arm() throws Exception {
          client.getData(path, event -> {
            long now = System.nanoTime();
            if (event.type() == EventType.NODE_DATA_CHANGED) {
              onChange.accept(now);
            }
          });
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {
      client.close();
    }
  }
}
