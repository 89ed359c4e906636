package dev.corral.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.ZooDefs;

/**
 * ZooKeeper 3.9 from its Maven Central jars, {@code ZooKeeperServerMain} in its
 * own JVM with zkServer.sh's heap (-Xmx1000m), a generated zoo.cfg with its
 * defaults ({@code forceSync=yes}) and {@code tickTime=1000} so that a 2 s session
 * timeout can be granted (as Corral's {@code --tick 1s}); Curator 5.7 as client.
 */
public final class ZooKeeperSystem implements BenchSystem {
  @Override
  public String name() {
    return "zookeeper";
  }

  @Override
  public String describe() {
    return "java -Xmx1000m org.apache.zookeeper.server.ZooKeeperServerMain zoo.cfg (ZooKeeper "
        + org.apache.zookeeper.Version.getFullVersion().split("[ ,-]")[0]
        + "; zoo.cfg: tickTime=1000, forceSync=yes, admin.enableServer=false, defaults otherwise); client Curator "
        + CuratorFramework.class.getPackage().getImplementationVersion();
  }

  @Override
  public boolean jvm() {
    return true;
  }

  @Override
  public ServerHandle start(Path dir) throws Exception {
    Files.createDirectories(dir.resolve("data"));
    int port = Ports.free();
    Path cfg = dir.resolve("zoo.cfg");
    Files.writeString(cfg, String.join("\n",
        "tickTime=1000",
        "dataDir=" + dir.resolve("data"),
        "clientPort=" + port,
        "clientPortAddress=127.0.0.1",
        "forceSync=yes",
        "admin.enableServer=false",
        ""), StandardCharsets.UTF_8);
    Path log = dir.resolve("server.log");
    List<String> command = List.of(Procs.javaBin(), "-Xmx1000m",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
        "-cp", System.getProperty("java.class.path"),
        "org.apache.zookeeper.server.ZooKeeperServerMain", cfg.toString());
    Process process = Procs.start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
    CorralSystem.Simple handle = new CorralSystem.Simple(process, "127.0.0.1:" + port, log);
    try {
      Ports.awaitListening(process, port, 60_000, log, "zookeeper server");
    } catch (Exception e) {
      handle.close();
      throw e;
    }
    return handle;
  }

  @Override
  public Client connect(ServerHandle server, Duration sessionTimeout) throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.builder()
        .connectString(server.connectString())
        .sessionTimeoutMs((int) sessionTimeout.toMillis())
        .connectionTimeoutMs((int) Math.min(15_000, sessionTimeout.toMillis()))
        .retryPolicy(new ExponentialBackoffRetry(100, 5))
        .build();
    curator.start();
    if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
      curator.close();
      throw new IllegalStateException("no ZooKeeper session within 30 s at " + server.connectString());
    }
    return new CuratorClient(curator);
  }

  private static final class CuratorClient implements Client {
    private final CuratorFramework curator;

    CuratorClient(CuratorFramework curator) {
      this.curator = curator;
    }

    @Override
    public void ensurePath(String path) throws Exception {
      try {
        curator.create().creatingParentsIfNeeded().forPath(path, new byte[0]);
      } catch (KeeperException.NodeExistsException exists) {
        // fine
      }
    }

    @Override
    public void create(String path, byte[] data) throws Exception {
      curator.create().forPath(path, data);
    }

    @Override
    public byte[] get(String path) throws Exception {
      return curator.getData().forPath(path);
    }

    @Override
    public void set(String path, byte[] data) throws Exception {
      curator.setData().forPath(path, data);
    }

    @Override
    public void delete(String path) throws Exception {
      curator.delete().forPath(path);
    }

    @Override
    public CompletableFuture<?> createAsync(String path, byte[] data) {
      CompletableFuture<String> done = new CompletableFuture<>();
      try {
        curator.getZookeeperClient().getZooKeeper().create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT, (rc, p, ctx, name) -> {
              if (rc == 0) {
                done.complete(name);
              } else {
                done.completeExceptionally(KeeperException.create(KeeperException.Code.get(rc), p));
              }
            }, null);
      } catch (Exception e) {
        done.completeExceptionally(e);
      }
      return done;
    }

    @Override
    public Mutex mutex(String path) {
      InterProcessMutex mutex = new InterProcessMutex(curator, path);
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
          curator.getData().usingWatcher((org.apache.zookeeper.Watcher) event -> {
            long now = System.nanoTime();
            if (event.getType() == EventType.NodeDataChanged) {
              onChange.accept(now);
            }
          }).forPath(path);
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public void close() {
      curator.close();
    }
  }
}
