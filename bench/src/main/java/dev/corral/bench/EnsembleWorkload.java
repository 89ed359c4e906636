package dev.corral.bench;

import dev.corral.bench.BenchSystem.Client;
import dev.corral.bench.Table.Better;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * W6 (issue 6): a 3-server ensemble. 8 sessions, connected with every
 * member's address, set 1 KiB values on nodes of their own in a loop, one
 * request at a time, from warm-up to the end:
 * <ol>
 *   <li>throughput: after a warm-up until the rate settles ({@link #open}),
 *       ops/s, p50 and p99 of the writes in measured rounds ({@link #measureRound},
 *       which the harness interleaves with other systems' rounds: the writers
 *       pause between them), while a {@link LeaderWatch} counts leader changes
 *       (there is no fault: each is spurious);
 *   <li>failover trials: the leader gets {@code kill -9}; measured from the
 *       kill to the end of the first successful write issued after the process
 *       was gone (by any client), and to the time by which every client has
 *       completed such a write; the killed member is started again on its data
 *       and must rejoin before the next trial.
 * </ol>
 * A failed write is retried by the writer after 5 ms (each client has already
 * retried it under its own default policy).
 */
final class EnsembleWorkload implements AutoCloseable {
  static final int CLIENTS = 8;
  static final long FAILOVER_CAP_MS = 60_000;
  static final long START_CAP_MS = 120_000;
  private static final long NONE = Long.MAX_VALUE;

  static final String THROUGHPUT = "W6 ensemble setData, 8 clients";
  static final String FAILOVER = "W6 kill -9 of the leader";
  static final String FIRST = "-> first write, median ms";
  static final String ALL = "-> all 8 clients writing, median ms";
  static final String ELECTED = "-> new leader seen (polls every 250 ms), median ms";
  static final String STABILITY = "W6 stability, 3 servers";
  static final String WARM_UP = "W6 warm-up of a fresh ensemble";
  static final String WARM_UP_SECONDS = "s until setData/s settled";
  /** How long the writers run in a round, once resumed, before it is measured. */
  static final long SETTLE_MS = 2000;
  /**
   * Before the first round, which comes after minutes of idleness for all but the last system warmed up, the
   * writers run until the rate settles again (windows of this length, the warm-up's plateau rule), at most
   * {@link #RESETTLE_CAP_MS} (or the warm-up's cap, if less). With a fixed 2 s, Corral's first round did
   * 1,091 setData/s and its next three 1,790-1,854 (2026-11-26); with 10 s, 1,200, then 1,648, 1,888, 1,959,
   * 2,067.
   */
  static final long RESETTLE_WINDOW_MS = 2500;
  static final long RESETTLE_CAP_MS = 60_000;

  private final BenchSystem system;
  private final Params p;
  private final Table table;
  private final Path dir;
  private final PrintStream log;
  private final String sys;
  private Ensemble ensemble;
  private Writers writers;
  private LeaderWatch watch;
  // the measured rounds, added up
  private long measuredNanos;
  private long failedInRounds;
  private int spuriousChanges;
  private long termsGrown;
  private long firstRoundStart;

  EnsembleWorkload(BenchSystem system, Params params, Table table, Path dir, PrintStream log) {
    this.system = system;
    this.p = params;
    this.table = table;
    this.dir = dir;
    this.log = log;
    this.sys = system.name();
  }

  BenchSystem system() {
    return system;
  }

  private void say(String format, Object... args) {
    log.printf("[%s] %s%n", sys, String.format(Locale.ROOT, format, args));
    log.flush();
  }

  /** The writers: each thread one session, one node. */
  private final class Writers implements AutoCloseable {
    final List<Client> clients;
    final List<Thread> threads = new ArrayList<>();
    final Samples[] window = new Samples[CLIENTS];
    volatile boolean measuring;
    volatile boolean stop;
    /** Writes issued at or after this nanoTime count for the trial under way. */
    final AtomicLong countFrom = new AtomicLong(NONE);
    /** Per client: end of its first successful write issued at or after {@code countFrom}; 0 if none yet. */
    final AtomicLongArray firstAfter = new AtomicLongArray(CLIENTS);
    /** Per client: end of its last successful write. */
    final AtomicLongArray lastOk = new AtomicLongArray(CLIENTS);
    final AtomicLongArray failures = new AtomicLongArray(CLIENTS);
    /** Successful writes since the start, for the warm-up's windows. */
    final LongAdder succeeded = new LongAdder();
    final List<AtomicReference<Throwable>> lastError = new ArrayList<>();
    /** Failed writes by kind ("ExceptionClass: message"), for the log; cleared per phase. */
    final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
    final AtomicReference<Throwable> fatal = new AtomicReference<>();
    private final Object gate = new Object();
    private boolean paused; // guarded by gate
    private int parked; // guarded by gate: writers waiting at the gate

    Writers(List<Client> clients) {
      this.clients = clients;
      for (int i = 0; i < CLIENTS; i++) {
        window[i] = new Samples();
        lastError.add(new AtomicReference<>());
      }
    }

    void start() {
      for (int i = 0; i < CLIENTS; i++) {
        int c = i;
        Thread t = new Thread(() -> write(c), "w6-" + sys + "-" + c);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    private void write(int c) {
      Client client = clients.get(c);
      String path = "/bench/w6/c" + c;
      byte[][] values = {bytes(1024, 61), bytes(1024, 62)};
      long n = 0;
      try {
        while (!stop) {
          awaitResumed();
          boolean counted = measuring;
          long t0 = System.nanoTime();
          try {
            client.set(path, values[(int) (n++ & 1)]);
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            failures.incrementAndGet(c);
            lastError.get(c).set(e);
            errorKinds.computeIfAbsent(kind(e), k -> new LongAdder()).increment();
            Thread.sleep(5);
            continue;
          }
          long t1 = System.nanoTime();
          lastOk.set(c, t1);
          succeeded.increment();
          if (counted && measuring) {
            synchronized (window[c]) { // the main thread merges the windows as measuring ends
              window[c].add(t1 - t0);
            }
          }
          if (t0 >= countFrom.get()) {
            firstAfter.compareAndSet(c, 0, t1);
          }
        }
      } catch (InterruptedException e) {
        // stopping
      } catch (Throwable e) {
        fatal.compareAndSet(null, e);
        synchronized (gate) { // a pause waiting for this writer gives up
          gate.notifyAll();
        }
      }
    }

    /** Stops the writers once their writes under way are done, and waits until each one has. */
    void pause() throws InterruptedException {
      long deadline = System.nanoTime() + FAILOVER_CAP_MS * 1_000_000L;
      synchronized (gate) {
        paused = true;
        while (parked < CLIENTS && fatal.get() == null) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new IllegalStateException("W6: a writer did not pause within " + FAILOVER_CAP_MS + " ms");
          }
          gate.wait(Math.max(1, left / 1_000_000));
        }
      }
    }

    void resume() {
      synchronized (gate) {
        paused = false;
        gate.notifyAll();
      }
    }

    private void awaitResumed() throws InterruptedException {
      synchronized (gate) {
        if (!paused) {
          return;
        }
        parked++;
        gate.notifyAll();
        while (paused && !stop) {
          gate.wait();
        }
        parked--;
      }
    }

    long totalFailures() {
      long sum = 0;
      for (int i = 0; i < CLIENTS; i++) {
        sum += failures.get(i);
      }
      return sum;
    }

    /** The failed writes since the last call, by kind, most frequent first; "none" if there were none. */
    String drainErrorKinds() {
      String text = errorKinds.entrySet().stream()
          .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
          .map(e -> e.getValue().sum() + " x " + e.getKey()).collect(Collectors.joining("; "));
      errorKinds.clear();
      return text.isEmpty() ? "none" : text;
    }

    /** Waits until every client has completed a write in the last second. */
    void awaitAllWriting(long timeoutMs) throws InterruptedException {
      long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
      while (true) {
        long now = System.nanoTime();
        List<Integer> stale = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
          if (now - lastOk.get(i) > 1_000_000_000L) {
            stale.add(i);
          }
        }
        if (stale.isEmpty()) {
          return;
        }
        if (now - deadline > 0) {
          throw new IllegalStateException("W6: client(s) " + stale + " wrote nothing for over a second, "
              + timeoutMs + " ms after the ensemble was whole; last errors: " + lastErrors(stale));
        }
        Thread.sleep(50);
      }
    }

    String lastErrors(List<Integer> which) {
      return which.stream().map(i -> i + ": " + lastError.get(i).get()).collect(Collectors.joining("; "));
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      resume();
      for (Thread t : threads) {
        t.join(30_000);
      }
      for (Thread t : threads) {
        if (t.isAlive()) {
          t.interrupt();
          t.join(5_000);
        }
      }
      for (Client c : clients) {
        try {
          c.close();
        } catch (Exception ignored) {
          // best effort
        }
      }
    }
  }

  private static String kind(Throwable e) {
    String message = String.valueOf(e.getMessage()).replaceAll("0x[0-9a-f]+", "0x…");
    return e.getClass().getSimpleName() + ": " + (message.length() > 160 ? message.substring(0, 160) + "…" : message);
  }

  private static byte[] bytes(int n, long seed) {
    byte[] data = new byte[n];
    new Random(seed).nextBytes(data);
    return data;
  }

  /**
   * Starts a fresh ensemble and its writers, warms up until the throughput
   * settles ({@link #warmUp}), and pauses the writers.
   */
  void open() throws Exception {
    say("W6 3-server ensemble: starting it (%s)", system.describeEnsemble());
    ensemble = system.startEnsemble(dir);
    int leader = ensemble.awaitLeader(START_CAP_MS);
    say("  members %s; leader %s (pid %d)", ensemble.connectString(), ensemble.name(leader), ensemble.pid(leader));
    List<Client> clients = new ArrayList<>();
    try {
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(system.connect(ensemble.connectString(), Workloads.SESSION));
      }
      clients.get(0).ensurePath("/bench/w6");
      for (int i = 0; i < CLIENTS; i++) {
        clients.get(i).create("/bench/w6/c" + i, bytes(1024, 60));
      }
    } catch (Exception e) {
      clients.forEach(Client::close);
      throw e;
    }
    writers = new Writers(clients);
    watch = new LeaderWatch(ensemble, sys);
    writers.start();
    say("W6 throughput: %d sessions, warm-up of %d-%d ms until the throughput settles, then %d rounds of %d ms"
        + " measured (setData 1 KiB)", CLIENTS, p.w6WarmMs(), p.w6WarmCapMs(), p.rounds(), roundMs());
    warmUp();
    writers.pause();
    checkWriters();
  }

  private long roundMs() {
    return Math.max(1000, p.w6MeasureMs() / p.rounds());
  }

  /**
   * One measured round: the writers resume, settle ({@link #SETTLE_MS}; before the first round until the rate
   * settles again), are measured, and pause.
   */
  void measureRound(int round) throws InterruptedException {
    writers.resume();
    if (round == 1) {
      say("W6 settling again before the first round: %s",
          runUntilSettled(RESETTLE_WINDOW_MS, 0, Math.min(RESETTLE_CAP_MS, p.w6WarmCapMs())));
    } else {
      Thread.sleep(SETTLE_MS);
    }
    writers.drainErrorKinds();
    long failedBefore = writers.totalFailures();
    int samplesBefore = measuredSamples();
    long start = System.nanoTime();
    if (firstRoundStart == 0) {
      firstRoundStart = start;
    }
    writers.measuring = true;
    Thread.sleep(roundMs());
    writers.measuring = false;
    long end = System.nanoTime();
    writers.pause();
    checkWriters();
    long failed = writers.totalFailures() - failedBefore;
    int changes = watch.changesBetween(start, end).size();
    measuredNanos += end - start;
    failedInRounds += failed;
    spuriousChanges += changes;
    termsGrown += watch.termsBetween(start, end);
    int ops = measuredSamples() - samplesBefore;
    say("W6 round %d/%d: %d ops %.0f ops/s; %d failed writes (%s); %d leader change(s)", round, p.rounds(), ops,
        ops / ((end - start) / 1e9), failed, writers.drainErrorKinds(), changes);
  }

  private int measuredSamples() {
    int n = 0;
    for (Samples s : writers.window) {
      synchronized (s) {
        n += s.size();
      }
    }
    return n;
  }

  /** The throughput and stability over every measured round, into the table. */
  void reportThroughput() {
    Samples all = new Samples();
    for (Samples s : writers.window) {
      synchronized (s) { // a writer may be adding its last sample
        all.addAll(s);
      }
    }
    double seconds = measuredNanos / 1e9;
    double opsPerSec = all.size() / seconds;
    table.put(THROUGHPUT, "ops/s", Better.HIGHER, sys, opsPerSec);
    table.put(THROUGHPUT, "p50 ms", Better.LOWER, sys, all.p50Ms());
    table.put(THROUGHPUT, "p99 ms", Better.LOWER, sys, all.p99Ms());
    table.addSeries("w6-setData-8c", THROUGHPUT, sys, all);
    String metric = String.format(Locale.ROOT, "spurious leader changes in %.0f s of load", seconds);
    table.put(STABILITY, metric, Better.LOWER, sys, spuriousChanges);
    say("%s: %d ops in %d rounds, %.0f ops/s p50 %.3f ms p99 %.3f ms; %d failed writes; each client's ops@p50 ms:"
        + " %s", THROUGHPUT, all.size(), p.rounds(), opsPerSec, all.p50Ms(), all.p99Ms(), failedInRounds,
        Arrays.stream(writers.window).map(w -> String.format(Locale.ROOT, "%d@%.1f", w.size(), w.p50Ms()))
            .collect(Collectors.joining(" ")));
    say("  spurious leader changes: %d (term grew by %d; leaders seen: %s)", spuriousChanges, termsGrown,
        describe(watch.leaders(), firstRoundStart));
    if (failedInRounds > 0) {
      table.note(sys + ": W6 had " + failedInRounds + " failed write(s) in the measured rounds (no fault injected)");
    }
    if (termsGrown != spuriousChanges) {
      table.note(String.format(Locale.ROOT, "%s: W6 leader term grew by %d in the %.0f s of load (%d leader"
          + " change(s) seen by polling every %d ms)", sys, termsGrown, seconds, spuriousChanges,
          LeaderWatch.POLL_MS));
    }
  }

  private void checkWriters() {
    if (writers.fatal.get() != null) {
      throw new IllegalStateException("W6: a writer failed: " + writers.fatal.get(), writers.fatal.get());
    }
  }

  /** Stops the writers, the leader polls and every member; harmless for a workload that never opened. */
  @Override
  public void close() throws Exception {
    try (Ensemble members = ensemble; LeaderWatch polls = watch; Writers w = writers) {
      // closed in reverse order: writers, polls, then the members
    }
  }

  /**
   * Lets the writers run for at least {@code w6WarmMs}, then on in windows until the throughput is on a
   * plateau ({@link Plateau}), up to {@code w6WarmCapMs}: every system is measured once its servers'
   * JIT has settled, and the time that took is reported.
   */
  private void warmUp() throws InterruptedException {
    Plateau.Settling warm = runUntilSettled(Math.min(5000, p.w6WarmMs()), p.w6WarmMs(), p.w6WarmCapMs());
    say("  warm-up %s", warm);
    table.put(WARM_UP, WARM_UP_SECONDS, Better.LOWER, sys, warm.elapsedMs() / 1e3);
    if (!warm.settled()) {
      table.note(sys + ": W6 throughput had not settled when the warm-up cap of " + p.w6WarmCapMs()
          + " ms ended it");
    }
  }

  /** Lets the writers run in windows of {@code windowMs} for at least {@code minMs}, then until {@link Plateau}. */
  private Plateau.Settling runUntilSettled(long windowMs, long minMs, long capMs) throws InterruptedException {
    return Plateau.runUntilSettled(windowMs, minMs, capMs, "ops/s", window -> {
      long before = writers.succeeded.sum();
      long t0 = System.nanoTime();
      Thread.sleep(window);
      return (writers.succeeded.sum() - before) / ((System.nanoTime() - t0) / 1e9);
    });
  }

  private static String describe(List<LeaderWatch.Leader> leaders, long origin) {
    return leaders.stream().map(l -> String.format(Locale.ROOT, "%s@term %d (%+.1f s)", l.self(), l.term(),
        (l.nanos() - origin) / 1e9)).collect(Collectors.joining(", "));
  }

  /** The kill -9 trials of the leader, with the writers resumed. */
  void failover() throws Exception {
    say("W6 failover: %d kill -9 trials of the leader", p.w6Trials());
    writers.resume();
    Samples first = new Samples();
    Samples allWriting = new Samples();
    Samples elected = new Samples();
    try {
      for (int t = 0; t < p.w6Trials(); t++) {
        int leader = ensemble.awaitLeader(START_CAP_MS);
        writers.awaitAllWriting(FAILOVER_CAP_MS);
        Thread.sleep(1000);
        for (int i = 0; i < CLIENTS; i++) {
          writers.firstAfter.set(i, 0);
        }
        long failedBefore = writers.totalFailures();
        writers.drainErrorKinds();
        long killed = System.nanoTime();
        long gone = ensemble.kill9(leader);
        writers.countFrom.set(gone);
        long deadline = gone + FAILOVER_CAP_MS * 1_000_000L;
        while (System.nanoTime() < deadline && !allSet(writers.firstAfter)) {
          Thread.sleep(5);
        }
        writers.countFrom.set(NONE);
        long[] ends = new long[CLIENTS];
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
          ends[i] = writers.firstAfter.get(i);
          if (ends[i] == 0) {
            missing.add(i);
          }
        }
        long firstEnd = LongStream.of(ends).filter(e -> e != 0).min().orElse(0);
        if (firstEnd != 0) {
          first.add(firstEnd - killed);
        }
        Optional<LeaderWatch.Leader> newlyElected = watch.firstSince(gone);
        newlyElected.ifPresent(l -> elected.add(l.nanos() - killed));
        String newLeader = newlyElected.map(l -> String.format(Locale.ROOT,
            "%s (term %d, seen %.0f ms after the kill)", l.self(), l.term(), (l.nanos() - killed) / 1e6))
            .orElse("none seen");
        if (!missing.isEmpty()) {
          throw new IllegalStateException(String.format(Locale.ROOT, "W6 trial %d: %d s after kill -9 of %s, "
              + "client(s) %s had not completed a write (first write by any: %s); new leader %s; failed writes: %s;"
              + " last errors: %s%n%s", t + 1, FAILOVER_CAP_MS / 1000, ensemble.name(leader), missing,
              firstEnd == 0 ? "none" : String.format(Locale.ROOT, "%.0f ms", (firstEnd - killed) / 1e6), newLeader,
              writers.drainErrorKinds(), writers.lastErrors(missing), ensemble.describe()));
        }
        long lastEnd = LongStream.of(ends).max().orElseThrow();
        allWriting.add(lastEnd - killed);
        say("  trial %d: kill -9 %s (pid %d) -> first write %.1f ms, all %d clients writing %.1f ms; new leader %s;"
            + " each client's first write (ms): %s; %d failed writes meanwhile (%s)", t + 1, ensemble.name(leader),
            ensemble.pid(leader), (firstEnd - killed) / 1e6, CLIENTS, (lastEnd - killed) / 1e6, newLeader,
            LongStream.of(ends).mapToObj(e -> String.format(Locale.ROOT, "%.0f", (e - killed) / 1e6))
                .collect(Collectors.joining(" ")),
            writers.totalFailures() - failedBefore, writers.drainErrorKinds());
        ensemble.restart(leader, START_CAP_MS);
        ensemble.awaitRejoined(leader, START_CAP_MS);
        say("    %s restarted (pid %d) and rejoined", ensemble.name(leader), ensemble.pid(leader));
      }
    } finally {
      record(first, allWriting, elected);
    }
    checkWriters();
  }

  private void record(Samples first, Samples allWriting, Samples elected) {
    if (first.size() > 0) {
      table.put(FAILOVER, FIRST, Better.LOWER, sys, first.p50Ms());
      table.putText(FAILOVER, "-> first write, each trial ms", Better.NONE, sys, trials(first));
      table.addSeries("w6-kill-first-write", "W6 kill -9 of the leader -> first write", sys, first);
    }
    if (allWriting.size() > 0) {
      table.put(FAILOVER, ALL, Better.LOWER, sys, allWriting.p50Ms());
      table.putText(FAILOVER, "-> all 8 clients writing, each trial ms", Better.NONE, sys, trials(allWriting));
      table.addSeries("w6-kill-all-writing", "W6 kill -9 of the leader -> all 8 clients writing", sys, allWriting);
    }
    if (elected.size() > 0) {
      table.put(FAILOVER, ELECTED, Better.LOWER, sys, elected.p50Ms());
    }
    if (first.size() > 0) {
      say("  leader kill -> first write median %.1f ms (%s); -> all clients writing median %.1f ms (%s)",
          first.p50Ms(), trials(first), allWriting.p50Ms(), trials(allWriting));
    }
  }

  /** Each trial in ms, in order: "812.0 · 790.3 · 1,004.1". */
  static String trials(Samples s) {
    return LongStream.of(s.toArray()).mapToObj(n -> Report.format("ms", n / 1e6))
        .collect(Collectors.joining(" · "));
  }

  private static boolean allSet(AtomicLongArray a) {
    for (int i = 0; i < a.length(); i++) {
      if (a.get(i) == 0) {
        return false;
      }
    }
    return true;
  }
}
