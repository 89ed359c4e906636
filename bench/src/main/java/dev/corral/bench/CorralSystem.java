package dev.corral.bench;

import dev.corral.client.CreateMode;
import dev.corral.client.CreateOptions;
import dev.corral.client.EventType;
import dev.corral.client.NodeExistsException;
import dev.corral.client.grpc.CorralClient;
import dev.corral.recipes.lock.InterProcessMutex;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Corral, started as {@code java -jar corral-server-*-all.jar} (the shaded jar
 * bin/corral-server runs, with its defaults but {@code --tick 1s} so that a 2 s
 * session timeout can be granted), or from this JVM's classpath if no jar is
 * given (the fast test). Extra server JVM options come from {@code CORRAL_JAVA_OPTS},
 * as for bin/corral-server.
 */
public final class CorralSystem implements BenchSystem {
  private final Path jar;

  /** @param jar the server's shaded jar, or null to run {@code dev.corral.server.Main} from this classpath */
  public CorralSystem(Path jar) {
    this.jar = jar;
  }

  @Override
  public String name() {
    return "corral";
  }

  @Override
  public String describe() {
    return (jar != null ? "java -jar " + jar.getFileName() : "java -cp <bench classpath> dev.corral.server.Main")
        + " --port P --data-dir D --tick 1s (fsync before ack, its default; JVM defaults as bin/corral-server)";
  }

  @Override
  public boolean jvm() {
    return true;
  }

  @Override
  public ServerHandle start(Path dir) throws Exception {
    Files.createDirectories(dir);
    int port = Ports.free();
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
  public Client connect(ServerHandle server, Duration sessionTimeout) throws Exception {
    CorralClient client = CorralClient.builder().connectString(server.connectString())
        .sessionTimeout(sessionTimeout).build();
    if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("no Corral session within 30 s at " + server.connectString());
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
