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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The workloads of issue 6, for one system against one running server. W1,
 * W2, W3 and W5 are measured in rounds ({@code w1Round} etc.), which the
 * harness interleaves with other systems' rounds; each round's results add up
 * in a {@link Tally}, and {@code w1Report} etc. put the totals into the
 * {@link Table}. W4 and MEM write theirs at once.
 */
public final class Workloads implements AutoCloseable {
  /** Session timeout of the clients of W1-W3, W5 and MEM. */
  static final Duration SESSION = Duration.ofSeconds(10);
  /** W4's session timeout (the 2 s). */
  static final int W4_SESSION_MS = 2000;
  static final int W3_SESSIONS = 16;
  /** How long W3's sessions contend in a round before it is measured: all of them queued up. */
  static final long W3_SETTLE_MS = 500;
  static final String W1 = "W1";
  static final String W2 = "W2 uncontended lock, 1 client";
  static final String W2_WARM_UP = "W2 warm-up";
  static final String W2_WARM_UP_SECONDS = "s until cycles/s settled";
  static final String W3 = "W3 contended lock, 16 sessions";
  static final String W5 = "W5 watch latency (setData -> callback)";
  static final String W5_WARM_UP = "W5 warm-up";
  static final String W5_WARM_UP_SECONDS = "s until changes/s settled";

  private final BenchSystem system;
  private final ServerHandle server;
  private final Params p;
  private final Table table;
  private final Path work;
  private final PrintStream log;
  private final String sys;
  private final Map<String, Tally> tallies = new HashMap<>();
  /** W3: acquisitions of each session, and overlapping holders plus lost updates, over every round. */
  private final long[] w3Acquisitions = new long[W3_SESSIONS];
  private long w3Violations;
  private int w5Timeouts;
  /**
   * The sessions of each workload, by name: opened for its warm-up and kept to its report, so that its rounds
   * measure the sessions the warm-up warmed. A session opened anew for each round spent the round in the JIT's
   * re-compilation after a new connection (seen on both sides, client and server, for about a second).
   */
  private final Map<String, AutoCloseable> kept = new HashMap<>();

  public Workloads(BenchSystem system, ServerHandle server, Params params, Table table, Path work, PrintStream log) {
    this.system = system;
    this.server = server;
    this.p = params;
    this.table = table;
    this.work = work;
    this.log = log;
    this.sys = system.name();
  }

  BenchSystem system() {
    return system;
  }

  ServerHandle server() {
    return server;
  }

  private Tally tally(String series) {
    return tallies.computeIfAbsent(series, k -> new Tally());
  }

  /** Its share of {@code total} in one of {@code p.rounds()} rounds (at least 1). */
  private int perRound(int total) {
    return Math.max(1, total / p.rounds());
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

  /** Sessions opened together, closed together. */
  private record Sessions(List<Client> clients) implements AutoCloseable {
    Client get(int i) {
      return clients.get(i);
    }

    @Override
    public void close() {
      closeAll(clients);
    }
  }

  /** Opens what a workload keeps. */
  @FunctionalInterface
  private interface Opener<T> {
    T open() throws Exception;
  }

  /** What is kept under {@code key}: opened on first use, then the same until {@link #drop}. */
  @SuppressWarnings("unchecked")
  private <T extends AutoCloseable> T kept(String key, Opener<T> opener) throws Exception {
    AutoCloseable held = kept.get(key);
    if (held == null) {
      held = opener.open();
      kept.put(key, held);
    }
    return (T) held;
  }

  /** The {@code n} sessions kept under {@code key}. */
  private Sessions sessions(String key, int n) throws Exception {
    return kept(key, () -> new Sessions(connect(n, SESSION)));
  }

  /** Closes what is kept under {@code key}. */
  private void drop(String key) {
    AutoCloseable held = kept.remove(key);
    if (held != null) {
      closeAll(List.of(held));
    }
  }

  /** Closes every session still kept (a workload that failed never reached its report). */
  @Override
  public void close() {
    closeAll(new ArrayList<>(kept.values()));
    kept.clear();
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

  private enum Phase {
    CREATE("create"), GET("getData"), SET("setData"), DELETE("delete");

    final String op;

    Phase(String op) {
      this.op = op;
    }
  }

  /** W1's warm-up: third-size runs of every phase with 1, then 8 clients, repeated for at least w1WarmMs. */
  public void w1WarmUp() throws Exception {
    say("W1 warm-up, at least %d ms", p.w1WarmMs());
    long warmEnd = System.nanoTime() + p.w1WarmMs() * 1_000_000L;
    do { // each round deletes what it created
      w1Run(1, Math.max(50, p.w1Ops1() / 3), "/bench/w1warm", false);
      w1Run(8, Math.max(20, p.w1Ops8() / 3), "/bench/w1warm", false);
    } while (System.nanoTime() < warmEnd);
  }

  /** One round of W1: create/getData/setData/delete of 1 KiB values with 1 client, then 8. */
  public void w1Round(int round) throws Exception {
    for (int clients : new int[] {1, 8}) {
      int ops = perRound(clients == 1 ? p.w1Ops1() : p.w1Ops8());
      say("W1 round %d/%d, %d client(s), %d ops per phase per client", round, p.rounds(), clients, ops);
      w1Run(clients, ops, "/bench/w1", true);
    }
  }

  /** Puts W1's totals into the table. */
  public void w1Report() {
    for (int clients : new int[] {1, 8}) {
      drop(w1Sessions(clients));
      for (Phase phase : Phase.values()) {
        String workload = "W1 " + phase.op + ", " + clients + (clients == 1 ? " client" : " clients");
        report(workload, "w1-" + phase.op + "-" + clients + "c", "ops/s", workload);
      }
    }
  }

  /** The table's rate, p50 and p99 of a tally, and its latencies as a series. */
  private void report(String workload, String series, String rate, String title) {
    Tally t = tally(series);
    table.put(workload, rate, Better.HIGHER, sys, t.perSecond());
    table.put(workload, "p50 ms", Better.LOWER, sys, t.latencies().p50Ms());
    table.put(workload, "p99 ms", Better.LOWER, sys, t.latencies().p99Ms());
    table.addSeries(series, title, sys, t.latencies());
    say("%s: %d in %d rounds, %.0f %s p50 %.3f ms p99 %.3f ms", workload, t.latencies().size(), p.rounds(),
        t.perSecond(), rate, t.latencies().p50Ms(), t.latencies().p99Ms());
  }

  /** The key of W1's {@code n} kept sessions. */
  private static String w1Sessions(int n) {
    return "W1-" + n;
  }

  /** {@code n} of W1's kept sessions work on their own nodes, each under {@code prefix-n/c<i>}. */
  private void w1Run(int n, int opsPerClient, String prefix, boolean record) throws Exception {
    Sessions clients = sessions(w1Sessions(n), n);
    String base = prefix + "-" + n;
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
        tally("w1-" + phase.op + "-" + n + "c").add(all, wall);
        say("  %-8s %6d ops %9.0f ops/s p50 %.3f ms p99 %.3f ms", phase.op, all.size(), all.size() / (wall / 1e9),
            all.p50Ms(), all.p99Ms());
      }
    }
  }

  // ---------------------------------------------------------------- W2

  /**
   * W2's warm-up: uncontended acquire+release cycles for at least w2WarmMs, then on in windows until the
   * cycles/s are on a {@link Plateau}, at most w2WarmCapMs; the time it took goes into the table.
   */
  public void w2WarmUp() throws Exception {
    Mutex mutex = w2Mutex();
    warmUntilSettled("W2 uncontended lock", "cycles", W2_WARM_UP, W2_WARM_UP_SECONDS, i -> {
      mutex.acquire();
      mutex.release();
    });
  }

  /** W2's lock, in its kept session. */
  private Mutex w2Mutex() throws Exception {
    Client client = sessions("W2", 1).get(0);
    client.ensurePath("/bench/w2");
    return client.mutex("/bench/w2/lock");
  }

  /** One step of a warm-up: its {@code i}-th cycle or change. */
  @FunctionalInterface
  private interface WarmUpStep {
    void run(int i) throws Exception;
  }

  /**
   * Runs {@code step} for at least w2WarmMs, then on in windows of min(2.5 s, w2WarmMs) until its rate is on a
   * {@link Plateau}, at most w2WarmCapMs: W2's and W5's warm-up. Its length goes into the table's {@code row}.
   */
  private void warmUntilSettled(String workload, String unit, String row, String rowUnit, WarmUpStep step)
      throws Exception {
    AtomicLong steps = new AtomicLong();
    Plateau.Settling warm = Plateau.runUntilSettled(Math.min(2500, p.w2WarmMs()), p.w2WarmMs(), p.w2WarmCapMs(),
        unit + "/s", windowMs -> {
          long windowStart = System.nanoTime();
          int n = 0;
          while (System.nanoTime() - windowStart < windowMs * 1_000_000L) {
            step.run(n++);
          }
          steps.addAndGet(n);
          return n / ((System.nanoTime() - windowStart) / 1e9);
        });
    say("%s, %d warm-up %s in %s", workload, steps.get(), unit, warm);
    table.put(row, rowUnit, Better.LOWER, sys, warm.elapsedMs() / 1e3);
    if (!warm.settled()) {
      table.note(sys + ": " + workload + " " + unit + "/s had not settled when the warm-up cap of " + p.w2WarmCapMs()
          + " ms ended it");
    }
  }

  /** One round of W2: uncontended acquire+release cycles by one client. */
  public void w2Round(int round) throws Exception {
    Mutex mutex = w2Mutex();
    Samples samples = new Samples();
    long start = System.nanoTime();
    long deadline = start + p.phaseCapMs() * 1_000_000L;
    for (int i = 0; i < perRound(p.w2Cycles()) && System.nanoTime() < deadline; i++) {
      long t0 = System.nanoTime();
      mutex.acquire();
      mutex.release();
      samples.add(System.nanoTime() - t0);
    }
    long wall = System.nanoTime() - start;
    tally("w2-lock-cycle").add(samples, wall);
    say("W2 round %d/%d: %d cycles %.0f cycles/s p50 %.3f ms p99 %.3f ms", round, p.rounds(), samples.size(),
        samples.size() / (wall / 1e9), samples.p50Ms(), samples.p99Ms());
  }

  /** Puts W2's totals into the table. */
  public void w2Report() {
    drop("W2");
    report(W2, "w2-lock-cycle", "cycles/s", W2 + " (acquire+release)");
  }

  // ---------------------------------------------------------------- W3

  /** W3's warm-up: the contention of a round, for w3WarmMs, not measured. */
  public void w3WarmUp() throws Exception {
    say("W3 contended lock, %d sessions, %d ms warm-up", W3_SESSIONS, p.w3WarmMs());
    w3Run(p.w3WarmMs(), 0, false);
  }

  /** One round of W3: its share of the measured time, after the sessions have queued up for a moment. */
  public void w3Round(int round) throws Exception {
    long measureMs = Math.max(200, p.w3MeasureMs() / p.rounds());
    say("W3 round %d/%d: %d sessions, %d ms measured", round, p.rounds(), W3_SESSIONS, measureMs);
    w3Run(W3_SETTLE_MS, measureMs, true);
  }

  /**
   * 16 sessions contend for one lock guarding a shared counter: for
   * {@code warmMs}, then for {@code measureMs} counted into the tally if {@code record}.
   */
  private void w3Run(long warmMs, long measureMs, boolean record) throws Exception {
    int n = W3_SESSIONS;
    Sessions clients = sessions("W3", n);
    clients.get(0).ensurePath("/bench/w3");
    List<Mutex> mutexes = new ArrayList<>();
    for (Client c : clients.clients()) {
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
    Thread.sleep(warmMs);
    window[0] = System.nanoTime();
    phase.set(1);
    Thread.sleep(measureMs);
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
    w3Violations += violations.get() + Math.abs(lost); // the warm-up's count too
    if (!record) {
      return;
    }
    Samples all = new Samples();
    for (int c = 0; c < n; c++) {
      all.addAll(waits[c]);
      w3Acquisitions[c] += measured[c];
    }
    long wall = window[1] - window[0];
    tally("w3-lock-wait").add(all, wall);
    say("  %d acquisitions %.0f/s violations %d (lost updates %d) wait p50 %.3f p99 %.3f ms", all.size(),
        all.size() / (wall / 1e9), violations.get(), lost, all.p50Ms(), all.p99Ms());
  }

  /** Puts W3's totals into the table: fairness is max/min acquisitions per session over every round. */
  public void w3Report() {
    drop("W3");
    Tally t = tally("w3-lock-wait");
    long max = Arrays.stream(w3Acquisitions).max().orElse(0);
    long min = Arrays.stream(w3Acquisitions).min().orElse(0);
    table.put(W3, "acquisitions/s", Better.HIGHER, sys, t.perSecond());
    table.put(W3, "violations", Better.LOWER, sys, w3Violations);
    table.put(W3, "fairness max/min", Better.LOWER, sys, min == 0 ? Double.POSITIVE_INFINITY : (double) max / min);
    table.put(W3, "wait p50 ms", Better.LOWER, sys, t.latencies().p50Ms());
    table.put(W3, "wait p99 ms", Better.LOWER, sys, t.latencies().p99Ms());
    table.addSeries("w3-lock-wait", W3 + " (wait to acquire)", sys, t.latencies());
    say("%s: %d acquisitions in %d rounds, %.0f/s violations %d fairness %d/%d wait p50 %.3f p99 %.3f ms", W3,
        t.latencies().size(), p.rounds(), t.perSecond(), w3Violations, max, min, t.latencies().p50Ms(),
        t.latencies().p99Ms());
  }

  // ---------------------------------------------------------------- W5

  /**
   * W5's warm-up, by W2's rule: changes seen by the watcher for at least w2WarmMs, then on in windows until
   * the changes/s are on a {@link Plateau}, at most w2WarmCapMs; the time it took goes into the table. The
   * servers' watch paths run in no other workload, so a fixed few hundred changes measured them still compiling.
   */
  public void w5WarmUp() throws Exception {
    WatchedChanges changes = kept("W5", WatchedChanges::new);
    warmUntilSettled("W5 watch latency", "changes", W5_WARM_UP, W5_WARM_UP_SECONDS, changes::next);
  }

  /** One round of W5: setData by one session -> watcher callback in another. */
  public void w5Round(int round) throws Exception {
    int warm = perRound(p.w5Warm());
    int changes = perRound(p.w5Changes());
    say("W5 round %d/%d: %d warm-up + %d changes", round, p.rounds(), warm, changes);
    WatchedChanges watched = kept("W5", WatchedChanges::new);
    Samples samples = new Samples();
    long deadline = System.nanoTime() + 2 * p.phaseCapMs() * 1_000_000L;
    for (int i = 0; i < warm + changes && System.nanoTime() < deadline; i++) {
      long latency = watched.next(i);
      if (i >= warm && latency >= 0) {
        samples.add(latency);
      }
    }
    tally("w5-watch").add(samples, 0);
    w5Timeouts += watched.timeouts;
    say("  %d changes p50 %.3f ms p99 %.3f ms", samples.size(), samples.p50Ms(), samples.p99Ms());
  }

  /** Two sessions of W5: the writer sets the data of a node the watcher watches. */
  private final class WatchedChanges implements AutoCloseable {
    private static final String PATH = "/bench/w5/node";
    private final List<Client> clients;
    private final Client writer;
    private final DataWatch watch;
    private final AtomicLong fired = new AtomicLong();
    private final Semaphore signal = new Semaphore(0);
    private final byte[] data = bytes(100, 6);
    private int timeouts;

    WatchedChanges() throws Exception {
      clients = connect(2, SESSION);
      try {
        writer = clients.get(0);
        writer.ensurePath("/bench/w5");
        writer.ensurePath(PATH);
        watch = clients.get(1).watchData(PATH, now -> {
          fired.set(now);
          signal.release();
        });
      } catch (Exception e) {
        closeAll(clients);
        throw e;
      }
    }

    /** Arms the watch, sets the data, and returns the latency to the callback in ns; -1 if none came in 5 s. */
    long next(int i) throws Exception {
      signal.drainPermits();
      watch.arm();
      data[0] = (byte) i;
      long t0 = System.nanoTime();
      writer.set(PATH, data);
      if (!signal.tryAcquire(5, TimeUnit.SECONDS)) {
        if (++timeouts > 3) {
          throw new IllegalStateException("W5: more than 3 changes were never reported");
        }
        return -1;
      }
      return fired.get() - t0;
    }

    @Override
    public void close() {
      watch.close();
      closeAll(clients);
    }
  }

  /** Puts W5's totals into the table. */
  public void w5Report() {
    drop("W5");
    Samples samples = tally("w5-watch").latencies();
    table.put(W5, "p50 ms", Better.LOWER, sys, samples.p50Ms());
    table.put(W5, "p99 ms", Better.LOWER, sys, samples.p99Ms());
    table.addSeries("w5-watch", W5, sys, samples);
    if (w5Timeouts > 0) {
      table.note(sys + ": W5 had " + w5Timeouts + " change(s) with no callback within 5 s");
    }
    say("%s: %d changes in %d rounds, p50 %.3f ms p99 %.3f ms", W5, samples.size(), p.rounds(), samples.p50Ms(),
        samples.p99Ms());
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
