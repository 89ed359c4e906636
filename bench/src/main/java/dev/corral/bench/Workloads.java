package dev.corral.bench;

import dev.corral.bench.BenchSystem.Client;
import dev.corral.bench.BenchSystem.DataWatch;
import dev.corral.bench.BenchSystem.Mutex;
import dev.corral.bench.BenchSystem.ServerHandle;
import dev.corral.bench.Table.Better;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** The workloads of issue 6, for one system against one running server; results go into a {@link Table}. */
public final class Workloads {
  /** Session timeout of the clients of W1-W3, W5 and MEM. */
  static final Duration SESSION = Duration.ofSeconds(10);
  /** W4's session timeout (the 2 s). */
  static final int W4_SESSION_MS = 2000;

  private final BenchSystem system;
  private final ServerHandle server;
  private final Params p;
  private final Table table;
  private final Path work;
  private final PrintStream log;
  private final String sys;

  public Workloads(BenchSystem system, ServerHandle server, Params params, Table table, Path work, PrintStream log) {
    this.system = system;
    this.server = server;
    this.p = params;
    this.table = table;
    this.work = work;
    this.log = log;
    this.sys = system.name();
  }

  private void say(String format, Object... args) {
    log.printf("[%s] %s%n", sys, String.format(format, args));
    log.flush();
  }

  private static byte[] bytes(int n, long seed) {
    byte[] data = new byte[n];
    new Random(seed).nextBytes(data);
    return data;
  }

  private List<Client> connect(int n, Duration timeout) throws Exception {
    List<Client> clients = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        clients.add(system.connect(server.connectString(), timeout));
      }
    } catch (Exception e) {
      closeAll(clients);
      throw e;
    }
    return clients;
  }

  private static void closeAll(List<? extends AutoCloseable> closeables) {
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  // ---------------------------------------------------------------- W1

  private enum Phase { CREATE, GET, SET, DELETE }

  /** W1: create/getData/setData/delete of 1 KiB values with 1 and 8 clients (after a warm-up). */
  public void w1() throws Exception {
    say("W1 warm-up, at least %d ms", p.w1WarmMs());
    long warmEnd = System.nanoTime() + p.w1WarmMs() * 1_000_000L;
    do { // each round deletes what it created
      w1Run(1, Math.max(50, p.w1Ops1() / 3), "/bench/w1warm-1", false);
      w1Run(8, Math.max(20, p.w1Ops8() / 3), "/bench/w1warm-8", false);
    } while (System.nanoTime() < warmEnd);
    for (int clients : new int[] {1, 8}) {
      int ops = clients == 1 ? p.w1Ops1() : p.w1Ops8();
      say("W1 %d client(s), %d ops per phase per client", clients, ops);
      w1Run(clients, ops, "/bench/w1-" + clients, true);
    }
  }

  private void w1Run(int n, int opsPerClient, String base, boolean record) throws Exception {
    List<Client> clients = connect(n, SESSION);
    try {
      for (int i = 0; i < n; i++) {
        clients.get(i).ensurePath(base + "/c" + i);
      }
      byte[] value = bytes(1024, 1);
      byte[] value2 = bytes(1024, 2);
      int[] created = new int[n];
      for (Phase phase : Phase.values()) {
        Samples[] samples = new Samples[n];
        AtomicReference<Throwable> error = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] startNs = new long[1];
        for (int i = 0; i < n; i++) {
          int c = i;
          samples[c] = new Samples();
          Thread t = new Thread(() -> {
            Client client = clients.get(c);
            String dir = base + "/c" + c + "/n";
            try {
              start.await();
              long deadline = startNs[0] + p.phaseCapMs() * 1_000_000L;
              int count = phase == Phase.CREATE ? opsPerClient
                  : phase == Phase.DELETE ? created[c] : (created[c] == 0 ? 0 : opsPerClient);
              for (int j = 0; j < count && System.nanoTime() < deadline && error.get() == null; j++) {
                String path = dir + (phase == Phase.CREATE || phase == Phase.DELETE ? j : j % created[c]);
                long t0 = System.nanoTime();
                switch (phase) {
                  case CREATE -> client.create(path, value);
                  case GET -> client.get(path);
                  case SET -> client.set(path, (j & 1) == 0 ? value2 : value);
                  case DELETE -> client.delete(path);
                }
                samples[c].add(System.nanoTime() - t0);
                if (phase == Phase.CREATE) {
                  created[c] = j + 1;
                }
              }
            } catch (Throwable e) {
              error.compareAndSet(null, e);
            }
          }, "w1-" + sys + "-" + c);
          threads.add(t);
          t.start();
        }
        startNs[0] = System.nanoTime();
        start.countDown();
        for (Thread t : threads) {
          t.join(p.phaseCapMs() + 60_000);
          if (t.isAlive()) {
            error.compareAndSet(null, new IllegalStateException("a W1 client did not finish in time"));
          }
        }
        long wall = System.nanoTime() - startNs[0];
        if (error.get() != null) {
          throw new IllegalStateException("W1 " + phase + " with " + n + " clients failed: " + error.get(), error.get());
        }
        Samples all = new Samples();
        for (Samples s : samples) {
          all.addAll(s);
        }
        if (record) {
          String op = switch (phase) {
            case CREATE -> "create";
            case GET -> "getData";
            case SET -> "setData";
            case DELETE -> "delete";
          };
          String workload = "W1 " + op + ", " + n + (n == 1 ? " client" : " clients");
          double opsPerSec = all.size() / (wall / 1e9);
          table.put(workload, "ops/s", Better.HIGHER, sys, opsPerSec);
          table.put(workload, "p50 ms", Better.LOWER, sys, all.p50Ms());
          table.put(workload, "p99 ms", Better.LOWER, sys, all.p99Ms());
          table.addSeries("w1-" + op + "-" + n + "c", workload, sys, all);
          say("  %-8s %6d ops %9.0f ops/s p50 %.3f ms p99 %.3f ms", op, all.size(), opsPerSec, all.p50Ms(),
              all.p99Ms());
        }
      }
    } finally {
      closeAll(clients);
    }
  }

  // ---------------------------------------------------------------- W2

  /** W2: uncontended acquire+release cycles by one client. */
  public void w2() throws Exception {
    say("W2 uncontended lock, %d ms warm-up + %d cycles", p.w2WarmMs(), p.w2Cycles());
    try (Client client = system.connect(server.connectString(), SESSION)) {
      client.ensurePath("/bench/w2");
      Mutex mutex = client.mutex("/bench/w2/lock");
      long warmDeadline = System.nanoTime() + p.w2WarmMs() * 1_000_000L;
      int warm = 0;
      while (System.nanoTime() < warmDeadline) {
        mutex.acquire();
        mutex.release();
        warm++;
      }
      say("  %d warm-up cycles", warm);
      Samples samples = new Samples();
      long start = System.nanoTime();
      long deadline = start + p.phaseCapMs() * 1_000_000L;
      for (int i = 0; i < p.w2Cycles() && System.nanoTime() < deadline; i++) {
        long t0 = System.nanoTime();
        mutex.acquire();
        mutex.release();
        samples.add(System.nanoTime() - t0);
      }
      double wall = (System.nanoTime() - start) / 1e9;
      String w = "W2 uncontended lock, 1 client";
      table.put(w, "cycles/s", Better.HIGHER, sys, samples.size() / wall);
      table.put(w, "p50 ms", Better.LOWER, sys, samples.p50Ms());
      table.put(w, "p99 ms", Better.LOWER, sys, samples.p99Ms());
      table.addSeries("w2-lock-cycle", w + " (acquire+release)", sys, samples);
      say("  %d cycles %.0f cycles/s p50 %.3f ms p99 %.3f ms", samples.size(), samples.size() / wall,
          samples.p50Ms(), samples.p99Ms());
    }
  }

  // ---------------------------------------------------------------- W3

  /** W3: 16 sessions contend for one lock guarding a shared counter. */
  public void w3() throws Exception {
    int n = 16;
    say("W3 contended lock, %d sessions, %d ms warm-up + %d ms measured", n, p.w3WarmMs(), p.w3MeasureMs());
    List<Client> clients = connect(n, SESSION);
    try {
      clients.get(0).ensurePath("/bench/w3");
      List<Mutex> mutexes = new ArrayList<>();
      for (Client c : clients) {
        mutexes.add(c.mutex("/bench/w3/lock"));
      }
      AtomicInteger holders = new AtomicInteger();
      AtomicLong violations = new AtomicLong();
      AtomicLong counter = new AtomicLong();
      AtomicLong total = new AtomicLong();
      AtomicReference<Throwable> error = new AtomicReference<>();
      long[] measured = new long[n];
      Samples[] waits = new Samples[n];
      long[] window = new long[2];
      List<Thread> threads = new ArrayList<>();
      AtomicInteger phase = new AtomicInteger(); // 0 warm, 1 measuring, 2 stop
      for (int i = 0; i < n; i++) {
        int c = i;
        waits[c] = new Samples();
        Thread t = new Thread(() -> {
          Mutex mutex = mutexes.get(c);
          try {
            while (phase.get() < 2 && error.get() == null) {
              long t0 = System.nanoTime();
              mutex.acquire();
              long t1 = System.nanoTime();
              boolean counted = phase.get() == 1;
              try {
                if (holders.incrementAndGet() != 1) {
                  violations.incrementAndGet();
                }
                long v = counter.get(); // a read-modify-write that only the lock makes safe
                Thread.onSpinWait();
                counter.set(v + 1);
                total.incrementAndGet();
                holders.decrementAndGet();
              } finally {
                mutex.release();
              }
              if (counted) {
                measured[c]++;
                waits[c].add(t1 - t0);
              }
            }
          } catch (Throwable e) {
            error.compareAndSet(null, e);
          }
        }, "w3-" + sys + "-" + c);
        threads.add(t);
      }
      threads.forEach(Thread::start);
      Thread.sleep(p.w3WarmMs());
      window[0] = System.nanoTime();
      phase.set(1);
      Thread.sleep(p.w3MeasureMs());
      phase.set(2);
      window[1] = System.nanoTime();
      for (Thread t : threads) {
        t.join(60_000);
        if (t.isAlive()) {
          error.compareAndSet(null, new IllegalStateException("a W3 session did not stop within 60 s"));
        }
      }
      if (error.get() != null) {
        throw new IllegalStateException("W3 failed: " + error.get(), error.get());
      }
      long lost = total.get() - counter.get();
      long sum = Arrays.stream(measured).sum();
      long max = Arrays.stream(measured).max().orElse(0);
      long min = Arrays.stream(measured).min().orElse(0);
      double wall = (window[1] - window[0]) / 1e9;
      Samples all = new Samples();
      for (Samples s : waits) {
        all.addAll(s);
      }
      String w = "W3 contended lock, 16 sessions";
      table.put(w, "acquisitions/s", Better.HIGHER, sys, sum / wall);
      table.put(w, "violations", Better.LOWER, sys, violations.get() + Math.abs(lost));
      table.put(w, "fairness max/min", Better.LOWER, sys, min == 0 ? Double.POSITIVE_INFINITY : (double) max / min);
      table.put(w, "wait p50 ms", Better.LOWER, sys, all.p50Ms());
      table.put(w, "wait p99 ms", Better.LOWER, sys, all.p99Ms());
      table.addSeries("w3-lock-wait", w + " (wait to acquire)", sys, all);
      say("  %d acquisitions %.0f/s violations %d (lost updates %d) fairness %d/%d wait p50 %.3f p99 %.3f ms", sum,
          sum / wall, violations.get(), lost, max, min, all.p50Ms(), all.p99Ms());
    } finally {
      closeAll(clients);
    }
  }

  // ---------------------------------------------------------------- W5

  /** W5: setData by one session -> watcher callback in another. */
  public void w5() throws Exception {
    say("W5 watch latency, %d warm-up + %d changes", p.w5Warm(), p.w5Changes());
    List<Client> clients = connect(2, SESSION);
    DataWatch watch = null;
    try {
      Client writer = clients.get(0);
      Client watcher = clients.get(1);
      String path = "/bench/w5/node";
      writer.ensurePath("/bench/w5");
      writer.create(path, bytes(100, 5));
      AtomicLong fired = new AtomicLong();
      Semaphore signal = new Semaphore(0);
      watch = watcher.watchData(path, now -> {
        fired.set(now);
        signal.release();
      });
      Samples samples = new Samples();
      int timeouts = 0;
      long deadline = System.nanoTime() + 2 * p.phaseCapMs() * 1_000_000L;
      byte[] data = bytes(100, 6);
      for (int i = 0; i < p.w5Warm() + p.w5Changes() && System.nanoTime() < deadline; i++) {
        signal.drainPermits();
        watch.arm();
        data[0] = (byte) i;
        long t0 = System.nanoTime();
        writer.set(path, data);
        if (!signal.tryAcquire(5, TimeUnit.SECONDS)) {
          timeouts++;
          if (timeouts > 3) {
            throw new IllegalStateException("W5: more than 3 changes were never reported");
          }
          continue;
        }
        if (i >= p.w5Warm()) {
          samples.add(fired.get() - t0);
        }
      }
      String w = "W5 watch latency (setData -> callback)";
      table.put(w, "p50 ms", Better.LOWER, sys, samples.p50Ms());
      table.put(w, "p99 ms", Better.LOWER, sys, samples.p99Ms());
      table.addSeries("w5-watch", w, sys, samples);
      if (timeouts > 0) {
        table.note(sys + ": W5 had " + timeouts + " change(s) with no callback within 5 s");
      }
      say("  %d changes p50 %.3f ms p99 %.3f ms", samples.size(), samples.p50Ms(), samples.p99Ms());
    } finally {
      if (watch != null) {
        watch.close();
      }
      closeAll(clients);
    }
  }

  // ---------------------------------------------------------------- W4

  private record Event(int slot, String kind, long nanos) {}

  /** A contender JVM (W4). */
  private final class ContenderProc {
    final int slot;
    final Process process;
    final Writer stdin;

    ContenderProc(int slot, String id, LinkedBlockingQueue<Event> events) throws IOException {
      this.slot = slot;
      List<String> cmd = new ArrayList<>(List.of(Procs.javaBin(), "-Xmx128m", "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
          "-cp", System.getProperty("java.class.path"), Contender.class.getName()));
      cmd.addAll(List.of(system.contenderArgs(server, "/bench/w4/latch", id, W4_SESSION_MS)));
      Path err = work.resolve("contender-" + id + ".log");
      this.process = Procs.start(new ProcessBuilder(cmd).redirectError(err.toFile()));
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            long nanos = parts.length > 1 ? Long.parseLong(parts[1]) : System.nanoTime();
            events.add(new Event(slot, parts[0], nanos));
          }
        } catch (IOException | RuntimeException ignored) {
          // the process is gone
        }
        events.add(new Event(slot, "EXIT", System.nanoTime()));
      }, "w4-reader-" + id);
      reader.setDaemon(true);
      reader.start();
    }

    void send(String command) throws IOException {
      stdin.write(command + "\n");
      stdin.flush();
    }
  }

  private static Event await(LinkedBlockingQueue<Event> events, long timeoutMs, String what,
      java.util.function.Predicate<Event> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
    while (true) {
      long left = deadline - System.nanoTime();
      Event e = left <= 0 ? null : events.poll(left, TimeUnit.NANOSECONDS);
      if (e == null) {
        throw new IllegalStateException("W4: no " + what + " within " + timeoutMs + " ms");
      }
      if (wanted.test(e)) {
        return e;
      }
    }
  }

  /** W4: leader latch failover between 3 contender JVMs: clean close, then kill -9, each -> new leader callback. */
  public void w4() throws Exception {
    say("W4 leader latch failover, 3 contender JVMs, %d clean + %d kill -9 trials, session %d ms", p.w4Clean(),
        p.w4Kill(), W4_SESSION_MS);
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    ContenderProc[] slots = new ContenderProc[3];
    int spawned = 0;
    try (Client setup = system.connect(server.connectString(), SESSION)) {
      setup.ensurePath("/bench/w4");
    }
    try {
      for (int i = 0; i < 3; i++) {
        slots[i] = new ContenderProc(i, "c" + (spawned++), events);
      }
      int joined = 0;
      int leader = -1;
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (joined < 3 || leader < 0) {
        Event e = await(events, Math.max(1, (deadline - System.nanoTime()) / 1_000_000), "3 contenders and a leader",
            x -> true);
        switch (e.kind()) {
          case "JOINED" -> joined++;
          case "LEADER" -> leader = e.slot();
          case "EXIT" -> throw new IllegalStateException("W4: contender " + e.slot() + " exited; see its log in "
              + work);
          default -> { }
        }
      }
      Samples clean = new Samples();
      for (int t = 0; t < p.w4Clean(); t++) {
        Thread.sleep(500);
        int old = leader;
        slots[old].send("close");
        Event closing = await(events, 30_000, "CLOSING", e -> e.slot() == old && e.kind().equals("CLOSING"));
        Event next = await(events, 30_000, "new leader after a clean close",
            e -> e.slot() != old && e.kind().equals("LEADER"));
        clean.add(next.nanos() - closing.nanos());
        leader = next.slot();
        slots[old].send("rejoin");
        await(events, 30_000, "rejoin", e -> e.slot() == old && e.kind().equals("JOINED"));
        say("  clean close -> new leader %.1f ms", (next.nanos() - closing.nanos()) / 1e6);
      }
      Samples killed = new Samples();
      for (int t = 0; t < p.w4Kill(); t++) {
        Thread.sleep(1000);
        int old = leader;
        long t0 = System.nanoTime();
        Procs.kill9(slots[old].process);
        Event next = await(events, 30_000, "new leader after kill -9",
            e -> e.slot() != old && e.kind().equals("LEADER"));
        killed.add(next.nanos() - t0);
        leader = next.slot();
        say("  kill -9 -> new leader %.1f ms", (next.nanos() - t0) / 1e6);
        slots[old] = new ContenderProc(old, "c" + (spawned++), events);
        await(events, 60_000, "a replacement contender", e -> e.slot() == old && e.kind().equals("JOINED"));
      }
      String w = "W4 leader failover, 3 contenders";
      table.put(w, "clean close -> new leader, median ms", Better.LOWER, sys, clean.p50Ms());
      table.put(w, "clean close -> new leader, max ms", Better.LOWER, sys, clean.percentile(100) / 1e6);
      table.put(w, "kill -9 (2 s session) -> new leader, median ms", Better.LOWER, sys, killed.p50Ms());
      table.put(w, "kill -9 (2 s session) -> new leader, max ms", Better.LOWER, sys, killed.percentile(100) / 1e6);
      table.addSeries("w4-clean", "W4 clean close -> new leader", sys, clean);
      table.addSeries("w4-kill", "W4 kill -9 -> new leader", sys, killed);
    } finally {
      for (ContenderProc c : slots) {
        if (c != null && c.process.isAlive()) {
          try {
            c.send("exit");
          } catch (IOException ignored) {
            // stopped below
          }
        }
      }
      for (ContenderProc c : slots) {
        if (c != null) {
          if (!c.process.waitFor(10, TimeUnit.SECONDS)) {
            Procs.stop(c.process, 2000);
          } else {
            Procs.stop(c.process, 0);
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- MEM

  /** RSS after a pause and (for a JVM) a full GC through jcmd; [raw, settled]. */
  private long[] rss() throws InterruptedException {
    Thread.sleep(2000);
    long raw = Procs.rssBytes(server.pid());
    if (system.jvm()) {
      String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
      Procs.runQuietly(30_000, jcmd, Long.toString(server.pid()), "GC.run");
      Thread.sleep(1000);
    } else {
      Thread.sleep(1000);
    }
    return new long[] {raw, Procs.rssBytes(server.pid())};
  }

  /** MEM: the server's RSS empty and after {@code memNodes} nodes of 100 bytes (on a fresh server). */
  public void mem() throws Exception {
    int nodes = p.memNodes();
    int dirs = 100;
    say("MEM %d nodes of 100 bytes in %d parents", nodes, dirs);
    try (Client client = system.connect(server.connectString(), SESSION)) {
      for (int d = 0; d < dirs; d++) {
        client.ensurePath("/bench/mem/d" + d);
      }
      long[] empty = rss();
      byte[] data = bytes(100, 7);
      Semaphore inflight = new Semaphore(256);
      AtomicReference<Throwable> error = new AtomicReference<>();
      long deadline = System.nanoTime() + 600_000_000_000L;
      long start = System.nanoTime();
      for (int i = 0; i < nodes && error.get() == null; i++) {
        if (!inflight.tryAcquire(60, TimeUnit.SECONDS) || System.nanoTime() > deadline) {
          throw new IllegalStateException("MEM: loading stalled or took over 10 minutes at node " + i);
        }
        CompletableFuture<?> f = client.createAsync("/bench/mem/d" + (i % dirs) + "/n" + i, data);
        f.whenComplete((r, e) -> {
          if (e != null) {
            error.compareAndSet(null, e);
          }
          inflight.release();
        });
      }
      if (!inflight.tryAcquire(256, 120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("MEM: the last creates did not finish within 120 s");
      }
      if (error.get() != null) {
        throw new IllegalStateException("MEM: a create failed: " + error.get(), error.get());
      }
      double loadSec = (System.nanoTime() - start) / 1e9;
      long[] after = rss();
      String w = "MEM server RSS";
      String label = nodes == 100_000 ? "100,000" : String.format("%,d", nodes);
      table.put(w, "RSS empty MiB", Better.LOWER, sys, empty[1] / 1048576.0);
      table.put(w, "RSS after " + label + " nodes MiB", Better.LOWER, sys, after[1] / 1048576.0);
      table.put(w, "bytes per node", Better.LOWER, sys, (after[1] - empty[1]) / (double) nodes);
      table.put(w, "bytes per node, raw RSS (no GC)", Better.LOWER, sys, (after[0] - empty[0]) / (double) nodes);
      say("  loaded in %.1f s; RSS empty %.0f MiB, after %.0f MiB (raw %.0f -> %.0f MiB): %.0f bytes/node", loadSec,
          empty[1] / 1048576.0, after[1] / 1048576.0, empty[0] / 1048576.0, after[0] / 1048576.0,
          (after[1] - empty[1]) / (double) nodes);
    }
  }

  /** Writes a stack of ({@code workload} failed) into the table and log. */
  void failed(String workload, Throwable e) {
    say("%s FAILED: %s", workload, e);
    e.printStackTrace(log);
    table.note(sys + ": " + workload + " failed: " + e);
  }
}
