package dev.corral.bench;

import dev.corral.server.LoopbackPorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
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
 * W6's ensemble: {@code QuorumPeerMain} per member, the same zoo.cfg plus the
 * {@code server.N} lines, a myid file, zoo_sample.cfg's {@code initLimit} and
 * {@code syncLimit}, and {@code srvr} allowed for the harness's leader polls.
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
    int port = LoopbackPorts.free();
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
  public String describeEnsemble() {
    return "3 x java -Xmx1000m org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg (zoo.cfg as the single"
        + " server's plus server.1-3, myid, initLimit=10, syncLimit=5 as zoo_sample.cfg, and"
        + " 4lw.commands.whitelist=srvr for the harness's leader polls)";
  }

  @Override
  public Ensemble startEnsemble(Path dir) throws Exception {
    int size = 3;
    List<Integer> ports = LoopbackPorts.free(3 * size); // client, quorum, election
    StringBuilder servers = new StringBuilder();
    for (int i = 0; i < size; i++) {
      servers.append("server.").append(i + 1).append("=127.0.0.1:").append(ports.get(size + i)).append(':')
          .append(ports.get(2 * size + i)).append('\n');
    }
    List<Ensemble.MemberSpec> specs = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String id = Integer.toString(i + 1);
      Path memberDir = dir.resolve("member-" + id);
      Path data = Files.createDirectories(memberDir.resolve("data"));
      Files.writeString(data.resolve("myid"), id + "\n", StandardCharsets.UTF_8);
      Path cfg = memberDir.resolve("zoo.cfg");
      Files.writeString(cfg, String.join("\n",
          "tickTime=1000",
          "initLimit=10",
          "syncLimit=5",
          "dataDir=" + data,
          "clientPort=" + ports.get(i),
          "clientPortAddress=127.0.0.1",
          "forceSync=yes",
          "admin.enableServer=false",
          "4lw.commands.whitelist=srvr",
          servers.toString()), StandardCharsets.UTF_8);
      List<String> command = List.of(Procs.javaBin(), "-Xmx1000m",
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
          "-cp", System.getProperty("java.class.path"),
          "org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg.toString());
      specs.add(new Ensemble.MemberSpec("member " + id, command, ports.get(i), memberDir.resolve("server.log")));
    }
    List<Integer> clientPorts = ports.subList(0, size);
    String connect = clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    return Ensemble.start(name(), specs, connect, new SrvrProbe(clientPorts), EnsembleWorkload.START_CAP_MS);
  }

  /**
   * The four-letter word {@code srvr} on a member's client port: its Mode
   * (leader, follower; none while electing or syncing) and its last zxid, whose
   * high 32 bits are the leader's epoch.
   */
  private record SrvrProbe(List<Integer> ports) implements Ensemble.Probe {
    @Override
    public Optional<Ensemble.MemberView> view(int index) {
      String text;
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), ports.get(index)), 1000);
        socket.setSoTimeout(1000);
        socket.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return Optional.empty();
      }
      return Optional.of(parseSrvr(Integer.toString(index + 1), text));
    }

    @Override
    public void close() {}
  }

  /** A member's view from its {@code srvr} answer; ELECTING when it does not serve. */
  static Ensemble.MemberView parseSrvr(String myid, String text) {
    Ensemble.Role role = Ensemble.Role.ELECTING;
    long zxid = -1;
    for (String line : text.split("\n")) {
      if (line.startsWith("Mode:")) {
        String mode = line.substring(5).trim();
        role = mode.equals("leader") ? Ensemble.Role.LEADER
            : mode.equals("follower") ? Ensemble.Role.FOLLOWER : Ensemble.Role.ELECTING;
      } else if (line.startsWith("Zxid:")) {
        zxid = Long.decode(line.substring(5).trim());
      }
    }
    return new Ensemble.MemberView(myid, role, zxid < 0 ? -1 : zxid >>> 32,
        role == Ensemble.Role.LEADER ? myid : "", zxid);
  }

  @Override
  public Client connect(String connectString, Duration sessionTimeout) throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.builder()
        .connectString(connectString)
        .sessionTimeoutMs((int) sessionTimeout.toMillis())
        .connectionTimeoutMs((int) Math.min(15_000, sessionTimeout.toMillis()))
        .retryPolicy(new ExponentialBackoffRetry(100, 5))
        .build();
    curator.start();
    if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
      curator.close();
      throw new IllegalStateException("no ZooKeeper session within 30 s at " + connectString);
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
