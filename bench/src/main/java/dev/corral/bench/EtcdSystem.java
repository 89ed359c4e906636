package dev.corral.bench;

import dev.corral.server.LoopbackPorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.etcd.jetcd.watch.WatchEvent;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * etcd 3.4 from Debian's etcd-server package, one member on loopback with its
 * defaults (fsync of the WAL before ack); jetcd as client, etcd's Lock and
 * Election services for the recipes, a lease per session. W6's ensemble: three
 * members from one {@code --initial-cluster}, defaults otherwise.
 */
public final class EtcdSystem implements BenchSystem {
  private final Path binary;

  private EtcdSystem(Path binary) {
    this.binary = binary;
  }

  /** etcd from PATH, or empty (with the reason on stderr) if there is none. */
  public static Optional<EtcdSystem> find() {
    String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "etcd");
      if (Files.isExecutable(candidate)) {
        return Optional.of(new EtcdSystem(candidate));
      }
    }
    return Optional.empty();
  }

  /** The etcd binary's version line. */
  static String version(Path binary) {
    try {
      Process p = Procs.start(new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true));
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Procs.stop(p, 2000);
      return out.lines().findFirst().orElse("etcd").trim();
    } catch (Exception e) {
      return "etcd (version unknown)";
    }
  }

  @Override
  public String name() {
    return "etcd";
  }

  @Override
  public String describe() {
    return binary + " (" + version(binary) + "; one member, defaults, --log-level warn); client jetcd "
        + Optional.ofNullable(io.etcd.jetcd.Client.class.getPackage().getImplementationVersion()).orElse("0.8")
        + ", Lock/Election services with a lease per session";
  }

  @Override
  public boolean jvm() {
    return false;
  }

  @Override
  public ServerHandle start(Path dir) throws Exception {
    Files.createDirectories(dir);
    List<Integer> pair = LoopbackPorts.free(2); // distinct
    int port = pair.get(0);
    int peer = pair.get(1);
    String client = "http://127.0.0.1:" + port;
    String peerUrl = "http://127.0.0.1:" + peer;
    List<String> command = List.of(binary.toString(), "--name", "bench", "--data-dir", dir.resolve("data").toString(),
        "--listen-client-urls", client, "--advertise-client-urls", client,
        "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
        "--initial-cluster", "bench=" + peerUrl, "--log-level", "warn");
    Path log = dir.resolve("server.log");
    Process process = Procs.start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
    CorralSystem.Simple handle = new CorralSystem.Simple(process, client, log);
    try {
      Ports.awaitListening(process, port, 60_000, log, "etcd");
    } catch (Exception e) {
      handle.close();
      throw e;
    }
    return handle;
  }

  @Override
  public String describeEnsemble() {
    return "3 x " + binary + " (--initial-cluster of the three, defaults: heartbeat 100 ms, election timeout"
        + " 1000 ms; --log-level warn); jetcd with the three endpoints";
  }

  @Override
  public Ensemble startEnsemble(Path dir) throws Exception {
    int size = 3;
    List<Integer> ports = LoopbackPorts.free(2 * size); // client, peer
    List<String> cluster = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      cluster.add("m" + (i + 1) + "=http://127.0.0.1:" + ports.get(size + i));
    }
    List<Ensemble.MemberSpec> specs = new ArrayList<>();
    List<String> clients = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String name = "m" + (i + 1);
      Path memberDir = Files.createDirectories(dir.resolve("member-" + (i + 1)));
      String client = "http://127.0.0.1:" + ports.get(i);
      String peer = "http://127.0.0.1:" + ports.get(size + i);
      clients.add(client);
      // a restart on existing data ignores the --initial-* flags
      List<String> command = List.of(binary.toString(), "--name", name,
          "--data-dir", memberDir.resolve("data").toString(),
          "--listen-client-urls", client, "--advertise-client-urls", client,
          "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
          "--initial-cluster", String.join(",", cluster), "--initial-cluster-state", "new",
          "--initial-cluster-token", "corral-bench-w6", "--log-level", "warn");
      specs.add(new Ensemble.MemberSpec("member " + (i + 1), command, ports.get(i), memberDir.resolve("server.log")));
    }
    return Ensemble.start(name(), specs, String.join(",", clients), new StatusProbe(clients),
        EnsembleWorkload.START_CAP_MS);
  }

  /** Each member's {@code /v3/maintenance/status} through etcd's JSON gateway. */
  private static final class StatusProbe implements Ensemble.Probe {
    private static final Pattern FIELD =
        Pattern.compile("\"(member_id|leader|raftTerm|raftAppliedIndex)\":\"(\\d+)\"");
    private final List<String> endpoints;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    StatusProbe(List<String> endpoints) {
      this.endpoints = endpoints;
    }

    @Override
    public Optional<Ensemble.MemberView> view(int index) {
      String body;
      try {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(endpoints.get(index)
            + "/v3/maintenance/status")).timeout(Duration.ofSeconds(1))
            .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
          return Optional.empty();
        }
        body = response.body();
      } catch (IOException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
      Map<String, String> fields = new HashMap<>();
      Matcher m = FIELD.matcher(body);
      while (m.find()) {
        fields.putIfAbsent(m.group(1), m.group(2));
      }
      String self = fields.getOrDefault("member_id", "");
      String leader = fields.getOrDefault("leader", "0");
      Ensemble.Role role = leader.equals("0") ? Ensemble.Role.ELECTING
          : leader.equals(self) ? Ensemble.Role.LEADER : Ensemble.Role.FOLLOWER;
      return Optional.of(new Ensemble.MemberView(self, role, Long.parseLong(fields.getOrDefault("raftTerm", "0")),
          leader.equals("0") ? "" : leader, Long.parseLong(fields.getOrDefault("raftAppliedIndex", "0"))));
    }

    @Override
    public void close() {}
  }

  @Override
  public BenchSystem.Client connect(String connectString, Duration sessionTimeout) throws Exception {
    io.etcd.jetcd.Client client = io.etcd.jetcd.Client.builder().endpoints(connectString.split(",")).build();
    EtcdClient bench = new EtcdClient(client, Math.max(2, (sessionTimeout.toMillis() + 999) / 1000));
    try {
      client.getKVClient().get(key("/")).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      bench.close();
      throw e;
    }
    return bench;
  }

  static ByteSequence key(String path) {
    return ByteSequence.from(path, StandardCharsets.UTF_8);
  }

  /** A lease kept alive for as long as it is open: etcd's session. */
  static final class Session implements AutoCloseable {
    final long leaseId;
    private final CloseableClient keepAlive;
    private final io.etcd.jetcd.Client client;

    Session(io.etcd.jetcd.Client client, long ttlSeconds) throws Exception {
      this.client = client;
      this.leaseId = client.getLeaseClient().grant(ttlSeconds).get(30, TimeUnit.SECONDS).getID();
      this.keepAlive = client.getLeaseClient().keepAlive(leaseId, new StreamObserver<LeaseKeepAliveResponse>() {
        @Override
        public void onNext(LeaseKeepAliveResponse value) {}

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      });
    }

    @Override
    public void close() {
      keepAlive.close();
      try {
        client.getLeaseClient().revoke(leaseId).get(10, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // the lease expires by itself
      }
    }
  }

  private static final class EtcdClient implements BenchSystem.Client {
    private final io.etcd.jetcd.Client client;
    private final long ttlSeconds;
    private Session session;

    EtcdClient(io.etcd.jetcd.Client client, long ttlSeconds) {
      this.client = client;
      this.ttlSeconds = ttlSeconds;
    }

    private synchronized Session session() throws Exception {
      if (session == null) {
        session = new Session(client, ttlSeconds);
      }
      return session;
    }

    @Override
    public void ensurePath(String path) {
      // etcd has a flat key space
    }

    @Override
    public void create(String path, byte[] data) throws Exception {
      ByteSequence key = key(path);
      TxnResponse response = client.getKVClient().txn()
          .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.version(0)))
          .Then(Op.put(key, ByteSequence.from(data), PutOption.DEFAULT))
          .commit().get();
      if (!response.isSucceeded()) {
        throw new IllegalStateException("exists: " + path);
      }
    }

    @Override
    public byte[] get(String path) throws Exception {
      List<KeyValue> kvs = client.getKVClient().get(key(path)).get().getKvs();
      if (kvs.isEmpty()) {
        throw new IllegalStateException("no key " + path);
      }
      return kvs.get(0).getValue().getBytes();
    }

    @Override
    public void set(String path, byte[] data) throws Exception {
      client.getKVClient().put(key(path), ByteSequence.from(data)).get();
    }

    @Override
    public void delete(String path) throws Exception {
      client.getKVClient().delete(key(path)).get();
    }

    @Override
    public CompletableFuture<?> createAsync(String path, byte[] data) {
      return client.getKVClient().put(key(path), ByteSequence.from(data));
    }

    @Override
    public Mutex mutex(String path) throws Exception {
      Session s = session();
      ByteSequence name = key(path);
      return new Mutex() {
        private ByteSequence held;

        @Override
        public void acquire() throws Exception {
          held = client.getLockClient().lock(name, s.leaseId).get().getKey();
        }

        @Override
        public void release() throws Exception {
          client.getLockClient().unlock(held).get();
          held = null;
        }
      };
    }

    @Override
    public DataWatch watchData(String path, LongConsumer onChange) throws Exception {
      ByteSequence key = key(path);
      CountDownLatch ready = new CountDownLatch(1);
      io.etcd.jetcd.Watch.Watcher watcher = client.getWatchClient().watch(key, response -> {
        long now = System.nanoTime();
        for (WatchEvent event : response.getEvents()) {
          if (event.getEventType() == WatchEvent.EventType.PUT) {
            if (ready.getCount() > 0) {
              ready.countDown();
            } else {
              onChange.accept(now);
            }
          }
        }
      });
      // a watch is set up asynchronously: write until it reports (bounded), so the first measured change counts
      for (int i = 0; i < 50 && ready.getCount() > 0; i++) {
        client.getKVClient().put(key, ByteSequence.from("probe", StandardCharsets.UTF_8)).get();
        ready.await(100, TimeUnit.MILLISECONDS);
      }
      if (ready.getCount() > 0) {
        watcher.close();
        throw new IllegalStateException("the etcd watch on " + path + " never reported");
      }
      Thread.sleep(200); // let stray probe events drain before measuring
      return new DataWatch() {
        @Override
        public void arm() {}

        @Override
        public void close() {
          watcher.close();
        }
      };
    }

    @Override
    public synchronized void close() {
      if (session != null) {
        session.close();
        session = null;
      }
      client.close();
    }
  }
}
